#include "training/run_projection.hpp"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace jouleprof
