#include "jouleprof/epoch_file.hpp"

#include <gtest/gtest.h>
#include <stdlib.h>

#include "test_support.hpp"

namespace jouleprof {
namespace {

using Kind = EpochBoundary::Kind;

TEST(EpochFile, ReadsBeginsEndsAndTheOldBareEnds) {
  testing::TempDir dir;
  const auto path = dir.write("epochs", "begin 100\nend 200\n300\nbegin 40");
  auto read = read_epoch_file(path.string());
  ASSERT_TRUE(read) << read.error().message();
  ASSERT_EQ(read->size(), 3u);  // the unterminated last line is still being written
  EXPECT_EQ((*read)[0].kind, Kind::kBegin);
  EXPECT_EQ((*read)[0].t_ns, 100);
  EXPECT_EQ((*read)[1].kind, Kind::kEnd);
  EXPECT_EQ((*read)[2].kind, Kind::kEnd);
  EXPECT_EQ((*read)[2].t_ns, 300);
  EXPECT_TRUE(read_epoch_file((dir.path() / "none").string())->empty());
}

TEST(EpochFile, ABadLineNamesFileLineAndValue) {
  testing::TempDir dir;
  const auto path = dir.write("epochs", "end 100\nbegin soon\n");
  auto read = read_epoch_file(path.string());
  ASSERT_FALSE(read);
  EXPECT_NE(read.error().message().find(path.string() + ":2"), std::string::npos)
      << read.error().message();
  EXPECT_NE(read.error().message().find("soon"), std::string::npos);
}

TEST(EpochFile, NotifyAppendsLinesTheReaderReads) {
  testing::TempDir dir;
  const std::string path = (dir.path() / "epochs").string();
  // notify_epoch_file reads the variable once, at its first call in this process.
  ASSERT_EQ(setenv(kEpochFileEnv, path.c_str(), 1), 0);
  notify_epoch_file(Kind::kBegin, 5);
  notify_epoch_file(Kind::kEnd, 9);
  auto read = read_epoch_file(path);
  ASSERT_TRUE(read);
  ASSERT_EQ(read->size(), 2u);
  EXPECT_EQ((*read)[0].kind, Kind::kBegin);
  EXPECT_EQ((*read)[1].t_ns, 9);
}

TEST(EpochFile, ReadingStopsAtTheFirstBadLineAndSaysWhereItStarts) {
  testing::TempDir dir;
  const auto path = dir.write("epochs", "begin 10\nend 20\nbegin x\nend y\n");
  const auto read = read_epoch_file(path.string());
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.error().message(),
            path.string() +
                ":3: field 't_ns' has value 'x': not a positive integer time after 'begin ' or "
                "'end ' (line 3 starts at byte 16)");
}

}  // namespace
}  // namespace jouleprof
