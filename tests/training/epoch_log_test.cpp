#include "training/epoch_log.hpp"

#include <gtest/gtest.h>

#include "test_support.hpp"

namespace jouleprof {
namespace {

using testing::TempDir;

TEST(EpochLog, FromEpochEndMarks) {
  Timeline timeline;
  const auto track = timeline.add_track(Track{TrackKind::kCpuThread, "main", "cpu0"});
  const auto epoch = timeline.intern("epoch_end");
  const auto other = timeline.intern("step");
  timeline.add_mark(Mark{3 * kNsPerS, track, epoch});
  timeline.add_mark(Mark{1 * kNsPerS, track, epoch});
  timeline.add_mark(Mark{2 * kNsPerS, track, other});
  const auto log = epochs_from_marks(timeline, 0);
  ASSERT_TRUE(log) << log.error().message();
  ASSERT_EQ(log->size(), 2u);
  EXPECT_EQ(log->end_ns[0], kNsPerS);
  EXPECT_DOUBLE_EQ(log->epoch_duration_s(1), 2.0);
  EXPECT_EQ(log->origin, EpochOrigin::kMarks);

  Timeline none;
  EXPECT_FALSE(epochs_from_marks(none, 0));
}

TEST(EpochLog, FromACsvOfEndTimes) {
  TempDir dir;
  auto path = dir.write("epochs.csv", "epoch,end_s\n0,60.5\n1,100\n2,140\n");
  auto log = read_epochs_csv(path.string(), 1000);
  ASSERT_TRUE(log) << log.error().message();
  ASSERT_EQ(log->size(), 3u);
  EXPECT_EQ(log->end_ns[0], 1000 + 60'500'000'000);
  EXPECT_EQ(log->origin, EpochOrigin::kCsv);

  path = dir.write("bad.csv", "epoch,end_s\n0,60\n1,50\n");
  log = read_epochs_csv(path.string(), 0);
  ASSERT_FALSE(log);
  EXPECT_NE(log.error().message().find(path.string() + ":3"), std::string::npos);
  EXPECT_NE(log.error().message().find("end_s"), std::string::npos);

  path = dir.write("skip.csv", "epoch,end_s\n0,60\n2,80\n");
  log = read_epochs_csv(path.string(), 0);
  ASSERT_FALSE(log);
  EXPECT_NE(log.error().message().find("'epoch'"), std::string::npos);
}

// Found by fuzz/epoch_file_fuzz.cpp: an end time of 7.8e31 s was converted to int64 nanoseconds
// (undefined behaviour) instead of being refused.
TEST(EpochLog, AnEndTimeNoClockCanReachIsRefused) {
  TempDir dir;
  for (const std::string end : {"7.7777777777777777777777e31", "-1e300", "inf", "nan"}) {
    const auto path = dir.write("huge.csv", "epoch,end_s\n0," + end + "\n");
    const auto log = read_epochs_csv(path.string(), 0);
    ASSERT_FALSE(log) << end;
    EXPECT_NE(log.error().message().find("end_s"), std::string::npos) << log.error().message();
  }
}

TEST(EpochLog, EqualSplitSaysItIsAnAssumption) {
  const auto log = equal_split_epochs(0, 100 * kNsPerS, 4);
  ASSERT_TRUE(log);
  ASSERT_EQ(log->size(), 4u);
  EXPECT_EQ(log->end_ns.back(), 100 * kNsPerS);
  EXPECT_DOUBLE_EQ(log->epoch_duration_s(2), 25.0);
  EXPECT_NE(log->note.find("equal epochs"), std::string::npos);
  EXPECT_FALSE(equal_split_epochs(0, 100, 0));
  EXPECT_FALSE(equal_split_epochs(100, 100, 3));
}

}  // namespace
}  // namespace jouleprof
