#include "jouleprof/attribution_diagnostics.hpp"

#include <gtest/gtest.h>

namespace jouleprof {
namespace {

AttributionDiagnostics every_part() {
  AttributionDiagnostics d;
  d.update_period_ms = 100.0;
  d.typical_span_ms = 0.05;
  d.segments = 1200;
  d.measured_energy_j = 615.0;
  d.attributed_energy_j = 600.5;
  d.busy_s = 14.5;
  d.threads_weighed_by_cpu_time = 3;
  d.class_power_w = {{"gemm", 420.0}, {"[idle]", 90.0}};
  d.refinement = RefinementDiagnostics{150, 4, 2, 55.0, 88.5, 7.5};
  d.regression = RegressionDiagnostics{150, 4, 15, true, RegressionFit{}};
  d.regression->fit->rank = 5;
  d.regression->fit->columns = 5;
  d.regression->fit->condition_number = 1e300;
  d.regression->fit->residual_rms_j = 0.25;
  d.regression->fit->idle_power_w = 90.0;
  d.regression->fit->identified_classes = 3;
  d.regression->fit->standard_error_w = {{"[idle]", 1.5}, {"gemm", 4.0}};
  d.calibration = CalibrationDiagnostics{3, 1, 90.0};
  return d;
}

TEST(AttributionDiagnostics, NamesAndPartsMapOneToOne) {
  const std::map<std::string, double> named = diagnostics_by_name(every_part());
  EXPECT_EQ(named.at("power_w:gemm"), 420.0);
  EXPECT_EQ(named.at("se_w:[idle]"), 1.5);
  EXPECT_EQ(named.at("refined_classes"), 2.0);
  EXPECT_EQ(named.at("refine_read_delay_us"), 7.5);
  EXPECT_EQ(named.at("identifiable"), 1.0);
  EXPECT_EQ(named.at("uncalibrated_classes"), 1.0);
  const Result<AttributionDiagnostics> back = diagnostics_from_names(named);
  ASSERT_TRUE(back.ok()) << back.error().message();
  EXPECT_EQ(diagnostics_by_name(*back), named);
  ASSERT_TRUE(back->regression && back->regression->fit);
  EXPECT_EQ(back->regression->fit->standard_error_w.at("gemm"), 4.0);
  EXPECT_EQ(back->class_power_w.at("[idle]"), 90.0);
}

// A method that did not run leaves its part out, and its names out of the file.
TEST(AttributionDiagnostics, APartIsThereOnlyWhenItsMethodRan) {
  AttributionDiagnostics plain;
  plain.update_period_ms = 1.0;
  const std::map<std::string, double> named = diagnostics_by_name(plain);
  EXPECT_EQ(named.count("identifiable"), 0u);
  EXPECT_EQ(named.count("refined_classes"), 0u);
  const Result<AttributionDiagnostics> back = diagnostics_from_names(named);
  ASSERT_TRUE(back.ok());
  EXPECT_FALSE(back->regression || back->refinement || back->calibration);

  // A regression that had too few windows to fit: no fit part.
  const Result<AttributionDiagnostics> declined = diagnostics_from_names(
      {{"windows", 4.0}, {"classes", 3.0}, {"min_windows", 12.0}, {"identifiable", 0.0}});
  ASSERT_TRUE(declined.ok());
  ASSERT_TRUE(declined->regression.has_value());
  EXPECT_FALSE(declined->regression->identifiable);
  EXPECT_FALSE(declined->regression->fit.has_value());
}

TEST(AttributionDiagnostics, ACountThatIsNotAWholeNumberIsRefusedByName) {
  for (const double bad : {-1.0, 2.5, 1e300}) {
    const Result<AttributionDiagnostics> r =
        diagnostics_from_names({{"refined_classes", bad}, {"refine_windows", 3.0}});
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.error().message().find("'refined_classes'"), std::string::npos)
        << r.error().message();
  }
  // Names a later jouleprof may add are left out, not refused.
  EXPECT_TRUE(diagnostics_from_names({{"a_later_figure", 1.0}}).ok());
}

}  // namespace
}  // namespace jouleprof
