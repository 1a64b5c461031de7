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
  const Result<std::string> text = read_text_file(path.string(), "trace", content.size());
  ASSERT_TRUE(text.ok()) << text.error().message();
  EXPECT_EQ(*text, content);
}

TEST(TextFile, EachFailureSaysWhatItIs) {
  testing::TempDir dir;
  const Result<std::string> missing = read_text_file((dir.path() / "no").string(), "profile", 1);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code(), ErrorCode::kNotFound);
  EXPECT_EQ(missing.error().message(),
            (dir.path() / "no").string() + ": cannot open the profile: No such file or directory");
  const Result<std::string> directory = read_text_file(dir.path().string(), "samples file", 1);
  ASSERT_FALSE(directory.ok());
  EXPECT_EQ(directory.error().message(),
            dir.path().string() + ": is a directory, not a samples file");
}

TEST(TextFile, AFileBeyondItsKindsLimitIsRefusedBeforeItIsRead) {
  testing::TempDir dir;
  const std::string path = dir.write("p.json", std::string(2049, ' ')).string();
  const Result<std::string> text = read_text_file(path, "profile", 2048);
  ASSERT_FALSE(text.ok());
  EXPECT_EQ(text.error().message(),
            path +
                ": the profile holds 2049 bytes: a profile may hold at most 2048 bytes, since "
                "it is read whole and its parsed form takes several times that");
  EXPECT_TRUE(read_text_file(path, "profile", 2049).ok());
}

TEST(TextFile, WritesTheWholeTextAndSaysWhyItCannot) {
  testing::TempDir dir;
  const std::string path = (dir.path() / "out.txt").string();
  ASSERT_TRUE(write_text_file(path, "first, longer text").ok());
  ASSERT_TRUE(write_text_file(path, "second").ok());
  EXPECT_EQ(*read_text_file(path, "report", 100), "second");  // truncated, not overwritten in place
  const std::string missing_dir = (dir.path() / "no" / "out.txt").string();
  const Status missing = write_text_file(missing_dir, "x");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code(), ErrorCode::kNotFound);
  EXPECT_EQ(missing.error().message(),
            missing_dir + ": cannot open for writing: No such file or directory");
  const Status directory = write_text_file(dir.path().string(), "x");
  ASSERT_FALSE(directory.ok());
  EXPECT_EQ(directory.error().message(),
            dir.path().string() + ": cannot open for writing: Is a directory");
}

}  // namespace
}  // namespace jouleprof
