#include "core/text_file.hpp"

#include <gtest/gtest.h>

#include "test_support.hpp"

namespace jouleprof {
namespace {

TEST(TextFile, ReadsTheWholeFile) {
  testing::TempDir dir;
  std::string content(200'000, 'x');
  content += '\0';
  content += "tail";
  const auto path = dir.write("f.bin", content);
  const Result<std::string> text = read_text_file(path.string(), "trace");
  ASSERT_TRUE(text.ok()) << text.error().message();
  EXPECT_EQ(*text, content);
}

TEST(TextFile, EachFailureSaysWhatItIs) {
  testing::TempDir dir;
  const Result<std::string> missing = read_text_file((dir.path() / "no").string(), "profile");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code(), ErrorCode::kNotFound);
  EXPECT_EQ(missing.error().message(),
            (dir.path() / "no").string() + ": cannot open the profile: No such file or directory");
  const Result<std::string> directory = read_text_file(dir.path().string(), "samples file");
  ASSERT_FALSE(directory.ok());
  EXPECT_EQ(directory.error().message(),
            dir.path().string() + ": is a directory, not a samples file");
}

}  // namespace
}  // namespace jouleprof
