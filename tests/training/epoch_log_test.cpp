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

TEST(EpochLog, EpochOneStartsAtTheFirstBeginElseTheFirstStepElseTheRun) {
  using Kind = EpochBoundary::Kind;
  // begin 2 s, end 3 s, (evaluation), begin 4 s, end 5 s: the gap belongs to no epoch.
  auto log = epochs_from_boundaries({{Kind::kEnd, 5 * kNsPerS},
                                     {Kind::kBegin, 2 * kNsPerS},
                                     {Kind::kEnd, 3 * kNsPerS},
                                     {Kind::kBegin, 4 * kNsPerS}},
                                    kNsPerS, 0);
  ASSERT_TRUE(log) << log.error().message();
  ASSERT_EQ(log->size(), 2u);
  EXPECT_EQ(log->first_start, EpochStart::kBeginMark);
  EXPECT_EQ(log->begin_ns, 2 * kNsPerS);
  EXPECT_EQ(log->epoch_begin_ns(1), 4 * kNsPerS);
  EXPECT_DOUBLE_EQ(log->epoch_duration_s(0), 1.0);
  EXPECT_DOUBLE_EQ(log->epoch_duration_s(1), 1.0);
  EXPECT_NE(log->note.find("epoch 1 from the first epoch_begin"), std::string::npos) << log->note;

  // Ends only: epoch 1 from the first step, later ones from the previous end.
  log = epochs_from_boundaries({{Kind::kEnd, 3 * kNsPerS}, {Kind::kEnd, 4 * kNsPerS}}, kNsPerS + 1,
                               0);
  ASSERT_TRUE(log);
  EXPECT_EQ(log->first_start, EpochStart::kFirstStep);
  EXPECT_EQ(log->epoch_begin_ns(0), kNsPerS + 1);
  EXPECT_EQ(log->epoch_begin_ns(1), 3 * kNsPerS);

  // Neither: from the start of the run (the fallback, which outputs warn about).
  log = epochs_from_boundaries({{Kind::kEnd, 3 * kNsPerS}}, std::nullopt, kNsPerS);
  ASSERT_TRUE(log);
  EXPECT_EQ(log->first_start, EpochStart::kRunStart);
  EXPECT_EQ(log->epoch_begin_ns(0), kNsPerS);

  // Boundaries before the run and repeated ends are ignored; no end is an error.
  log = epochs_from_boundaries(
      {{Kind::kEnd, 1}, {Kind::kEnd, 3 * kNsPerS}, {Kind::kEnd, 3 * kNsPerS}}, std::nullopt, 10);
  ASSERT_TRUE(log);
  EXPECT_EQ(log->size(), 1u);
  EXPECT_FALSE(epochs_from_boundaries({{Kind::kBegin, 5}}, std::nullopt, 0));
}

TEST(EpochLog, MarksOfATimelineWithItsFirstStep) {
  Timeline timeline;
  const auto track = timeline.add_track(Track{TrackKind::kCpuThread, "main", "cpu0"});
  timeline.add_span(Span{2 * kNsPerS, 3 * kNsPerS, track, timeline.intern("step 0"), kNoIndex,
                         kNoIndex, SpanCategory::kStep, Pass::kNone});
  timeline.add_mark(Mark{4 * kNsPerS, track, timeline.intern("epoch_end")});
  auto log = epochs_from_marks(timeline, 0);
  ASSERT_TRUE(log) << log.error().message();
  EXPECT_EQ(log->first_start, EpochStart::kFirstStep);
  EXPECT_EQ(log->epoch_begin_ns(0), 2 * kNsPerS);
  // A train_begin mark (jouleprof::mark) comes before the first step.
  timeline.add_mark(Mark{2 * kNsPerS - 7, track, timeline.intern("train_begin")});
  log = epochs_from_marks(timeline, 0);
  ASSERT_TRUE(log);
  EXPECT_EQ(log->first_start, EpochStart::kTrainBegin);
  EXPECT_EQ(log->epoch_begin_ns(0), 2 * kNsPerS - 7);
  EXPECT_NE(log->note.find("epoch 1 from the train_begin mark"), std::string::npos) << log->note;
  timeline.add_mark(Mark{2 * kNsPerS + 5, track, timeline.intern("epoch_begin")});
  log = epochs_from_marks(timeline, 0);
  ASSERT_TRUE(log);
  EXPECT_EQ(log->first_start, EpochStart::kBeginMark);
  EXPECT_EQ(log->epoch_begin_ns(0), 2 * kNsPerS + 5);
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
  EXPECT_TRUE(log.error().message().ends_with("(line 3 starts at byte 17)"))
      << log.error().message();

  path = dir.write("skip.csv", "epoch,end_s\n0,60\n2,80\n");
  log = read_epochs_csv(path.string(), 0);
  ASSERT_FALSE(log);
  EXPECT_NE(log.error().message().find("'epoch'"), std::string::npos);
  EXPECT_NE(log.error().message().find("expected epoch 1"), std::string::npos);
}

TEST(EpochLog, ACsvMayNumberItsEpochsFromOneAsJouleprofPrintsThem) {
  TempDir dir;
  auto path = dir.write("epochs.csv", "epoch,end_s\n1,60.5\n2,100\n3,140\n");
  auto log = read_epochs_csv(path.string(), 0);
  ASSERT_TRUE(log) << log.error().message();
  ASSERT_EQ(log->size(), 3u);
  EXPECT_EQ(log->end_ns[2], 140 * kNsPerS);

  path = dir.write("mixed.csv", "epoch,end_s\n1,60\n1,80\n");
  log = read_epochs_csv(path.string(), 0);
  ASSERT_FALSE(log);
  EXPECT_NE(
      log.error().message().find("expected epoch 2 (rows in order, numbered from 1 or from 0)"),
      std::string::npos)
      << log.error().message();
  path = dir.write("late.csv", "epoch,end_s\n3,60\n");
  log = read_epochs_csv(path.string(), 0);
  ASSERT_FALSE(log);
  EXPECT_NE(log.error().message().find("expected epoch 1"), std::string::npos);
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
