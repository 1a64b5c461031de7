#include "training/run_projection.hpp"

#include <gtest/gtest.h>

#include "jouleprof/profile.hpp"
#include "jouleprof/samples_csv.hpp"
#include "test_support.hpp"

namespace jouleprof {
namespace {

using testing::shared_data;

constexpr const char* kMobilenet =
    "seaa2023/traces/cloud/mobilenet_v2/gpu-power-20221205T104713.csv";

TEST(RunProjection, StepOnALoggedSeaa2023Run) {
  JP_REQUIRE_SHARED_DATA(kMobilenet);
  ProjectRequest request;
  request.trace_path = (shared_data() / kMobilenet).string();
  request.epochs = 102;
  request.duration_s = 0.7959138888888889 * 3600.0;  // runs.csv: training_duration_h
  request.forward_gflops = 0.06402816;
  request.samples_per_epoch = 23807;
  const auto report = project_logged_run(request, GpuSpecTable::built_in());
  ASSERT_TRUE(report) << report.error().message();
  EXPECT_EQ(report->epochs.origin, EpochOrigin::kEqualSplit);
  EXPECT_NE(report->epochs.note.find("equal epochs"), std::string::npos);
  ASSERT_EQ(report->epoch_energies_j.size(), 102u);
  const double measured_j = 0.439617647e6;  // runs.csv energy_MJ
  EXPECT_NEAR(report->measured_j, measured_j, 0.01 * measured_j);
  ASSERT_GE(report->estimates.size(), 6u);
  EXPECT_EQ(report->estimates[0].method, "STEP");
  EXPECT_NEAR(report->estimates[0].energy_j, measured_j, 0.03 * measured_j);
  EXPECT_LE(*report->estimates[0].band_low_j, report->estimates[0].energy_j);
  EXPECT_GE(*report->estimates[0].band_high_j, report->estimates[0].energy_j);
  EXPECT_EQ(report->estimates.back().method, "FLOPs-linear");
}

TEST(RunProjection, TooFewEpochsIsExplainedAndUnknownGpusSkipBaselines) {
  JP_REQUIRE_SHARED_DATA(kMobilenet);
  ProjectRequest request;
  request.trace_path = (shared_data() / kMobilenet).string();
  request.epochs = 8;
  request.gpu_name = "Voodoo 2";
  const auto report = project_logged_run(request, GpuSpecTable::built_in());
  ASSERT_TRUE(report) << report.error().message();
  EXPECT_NEAR(report->estimates[0].energy_j, report->measured_j, 1e-9 * report->measured_j);
  bool explained = false, skipped = false;
  for (const std::string& w : report->warnings) {
    explained |= w.find("fewer than s + w") != std::string::npos;
    skipped |= w.find("Voodoo 2") != std::string::npos;
  }
  EXPECT_TRUE(explained);
  EXPECT_TRUE(skipped);

  request.epochs = 0;
  EXPECT_FALSE(project_logged_run(request, GpuSpecTable::built_in()));
}

// What `jouleprof run --epochs` writes: a 20 W counter and 20 epochs of 1 s, each marked by
// epoch_begin and epoch_end, after 3 s of start-up.
Profile run_with_epochs() {
  Profile p;
  p.meta.kind = "run";
  p.meta.begin_ns = kNsPerS;
  p.meta.end_ns = 25 * kNsPerS;
  Channel c;
  c.id = "rapl:package-0";
  c.source = "rapl-powercap";
  c.device = "cpu0";
  c.kind = ChannelKind::kEnergyCounter;
  Series s(c);
  for (TimeNs t = kNsPerS; t <= 25 * kNsPerS; t += 10 * kNsPerMs)
    EXPECT_TRUE(s.append(t, 20.0 * ns_to_s(t - kNsPerS)).ok());
  p.series.push_back(std::move(s));
  const auto track = p.timeline.add_track(Track{TrackKind::kProcess, "job", ""});
  for (int e = 0; e < 20; ++e) {
    const TimeNs begin = 4 * kNsPerS + e * kNsPerS;
    p.timeline.add_mark(Mark{begin, track, p.timeline.intern("epoch_begin")});
    p.timeline.add_mark(Mark{begin + kNsPerS, track, p.timeline.intern("epoch_end")});
  }
  return p;
}

// A duration past 64-bit nanoseconds is refused by name, not cast (undefined behaviour) into a
// negative end, so that C and Python callers get what the command line's bound gives it.
TEST(RunProjection, ADurationBeyondSixtyFourBitNanosecondsIsRefused) {
  JP_REQUIRE_SHARED_DATA(kMobilenet);
  ProjectRequest request;
  request.trace_path = (shared_data() / kMobilenet).string();
  request.epochs = 10;
  request.duration_s = 1e308;
  const auto report = project_logged_run(request, GpuSpecTable::built_in());
  ASSERT_FALSE(report);
  EXPECT_NE(report.error().message().find("ProjectRequest::duration_s"), std::string::npos)
      << report.error().message();
  EXPECT_NE(report.error().message().find("must be positive and at most"), std::string::npos)
      << report.error().message();
}

TEST(RunProjection, ReadsJouleprofsOwnProfileAndSamplesWithTheirEpochMarks) {
  testing::TempDir dir;
  const Profile run = run_with_epochs();
  const std::string profile = (dir.path() / "profile.json").string();
  const std::string samples = (dir.path() / "samples.csv").string();
  ASSERT_TRUE(write_profile_json(run, profile).ok());
  ASSERT_TRUE(write_samples_csv(run.series, samples).ok());
  for (const std::string& trace : {profile, samples}) {
    ProjectRequest request;
    request.trace_path = trace;
    request.epochs = 40;
    const auto report = project_logged_run(request, GpuSpecTable::built_in());
    ASSERT_TRUE(report) << trace << ": " << report.error().message();
    EXPECT_EQ(report->epochs.origin, EpochOrigin::kMarks) << trace;
    EXPECT_EQ(report->epochs.first_start, EpochStart::kBeginMark);
    ASSERT_EQ(report->epoch_energies_j.size(), 20u);
    EXPECT_NEAR(report->epoch_energies_j[0], 20.0, 1e-6) << "start-up left out";
    EXPECT_NEAR(report->measured_j, 400.0, 1e-6);
    EXPECT_NEAR(report->estimates[0].energy_j, 800.0, 1.0);  // STEP: 40 epochs of 20 J
  }
  // samples.csv without its profile: the epochs are an equal split, which the report says.
  testing::TempDir alone;
  const std::string lone = (alone.path() / "samples.csv").string();
  ASSERT_TRUE(write_samples_csv(run.series, lone).ok());
  ProjectRequest request;
  request.trace_path = lone;
  request.epochs = 24;
  const auto split = project_logged_run(request, GpuSpecTable::built_in());
  ASSERT_TRUE(split) << split.error().message();
  EXPECT_EQ(split->epochs.origin, EpochOrigin::kEqualSplit);
}

}  // namespace
}  // namespace jouleprof
