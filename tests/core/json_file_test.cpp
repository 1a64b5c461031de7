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

// A NUL byte ends the text for the parser, which would say "unexpected end of input" at the first
// column; the error names the byte instead (issue 30, class 9). A BOM is no error at all.
TEST(JsonFile, ANulByteIsNamedWhereItIs) {
  const std::string text("{\"a\": 1\0\0}", 10);
  EXPECT_EQ(parse_json(text, "p.json").error().message(),
            "p.json: not valid JSON: a NUL byte at byte offset 7 (a binary file?)");
  EXPECT_EQ(parse_json(std::string_view("\0\0{}", 4), "p.json").error().message(),
            "p.json: not valid JSON: a NUL byte at byte offset 0 (a binary file?)");
  const Result<nlohmann::json> bom = parse_json("\xef\xbb\xbf{\"a\": 1}", "p.json");
  ASSERT_TRUE(bom.ok()) << bom.error().message();
  EXPECT_EQ(bom->at("a"), 1);
}

// nlohmann keeps the last of two values silently; the reader refuses the file and names the key,
// at any depth. Sibling objects may of course share their keys.
TEST(JsonFile, AKeyGivenTwiceInOneObjectIsRefused) {
  const std::string refusal =
      "appears twice in one object, and JSON does not say which value holds";
  const std::string long_key(200, 'k');
  EXPECT_EQ(parse_json(R"({"energy_j": 1, "energy_j": 1e6})", "p.json").error().message(),
            "p.json: key 'energy_j' " + refusal);
  EXPECT_EQ(
      parse_json("{\"" + long_key + "\": 1, \"" + long_key + "\": 2}", "p.json").error().message(),
      "p.json: key '" + long_key.substr(0, 80) + "…' (200 bytes) " + refusal);
  EXPECT_EQ(parse_json(R"({"tree": {"children": [{"a": 1, "b": {"c": 2, "c": 3}}]}})", "p.json")
                .error()
                .message(),
            "p.json: key 'c' " + refusal);
  const Result<nlohmann::json> siblings =
      parse_json(R"([{"a": 1, "b": {"a": 2}}, {"a": 3, "b": {"a": 4}}])", "p.json");
  ASSERT_TRUE(siblings.ok()) << siblings.error().message();
  EXPECT_EQ((*siblings)[1]["b"]["a"], 4);
}

}  // namespace
}  // namespace jouleprof
