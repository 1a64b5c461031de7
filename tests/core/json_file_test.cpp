#include "core/json_file.hpp"

#include <gtest/gtest.h>

#include "test_support.hpp"

namespace jouleprof {
namespace {

TEST(JsonFile, ReadsTheDocument) {
  testing::TempDir dir;
  const auto path = dir.write("rules.json", R"({"BF_conv_relu": {"obey": true}})").string();
  const Result<nlohmann::json> doc = read_json_file(path, "fusion rules file");
  ASSERT_TRUE(doc.ok()) << doc.error().message();
  EXPECT_TRUE((*doc)["BF_conv_relu"]["obey"].get<bool>());
}

TEST(JsonFile, TextThatIsNotJsonNamesTheFile) {
  testing::TempDir dir;
  const auto path = dir.write("cut.json", R"({"HW": [7)").string();
  const Result<nlohmann::json> doc = read_json_file(path, "kernel space file");
  ASSERT_FALSE(doc.ok());
  EXPECT_EQ(doc.error().code(), ErrorCode::kInvalidInput);
  EXPECT_EQ(doc.error().message().rfind(path + ": not valid JSON: ", 0), 0u)
      << doc.error().message();
  const Result<nlohmann::json> missing = read_json_file(path + ".no", "kernel space file");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code(), ErrorCode::kNotFound);
  EXPECT_NE(parse_json("[1,", "settings").error().message().find("settings: not valid JSON"),
            std::string::npos);
}

}  // namespace
}  // namespace jouleprof
