#include "predict/prediction_interval.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace jouleprof::predict {
namespace {

TEST(PredictionInterval, HalfWidthIsTheConformalRankOfTheResiduals) {
  std::vector<double> residuals;
  for (int i = 1; i <= 19; ++i) residuals.push_back(0.01 * i);
  // ⌈(19 + 1) · 0.9⌉ = 18th smallest.
  EXPECT_DOUBLE_EQ(conformal_log_half_width(residuals, 0.9), 0.18);
  // Too few residuals for the level: the largest.
  EXPECT_DOUBLE_EQ(conformal_log_half_width({0.3, 0.1}, 0.9), 0.3);
  EXPECT_EQ(conformal_log_half_width({}, 0.9), 0.0);
}

TEST(PredictionInterval, BoundsAreMultiplicativeAndCoverageCountsTheInside) {
  PredictionInterval interval;
  interval.log_half_width = std::log(2.0);
  EXPECT_DOUBLE_EQ(interval.low_mj(10.0), 5.0);
  EXPECT_DOUBLE_EQ(interval.high_mj(10.0), 20.0);
  const std::vector<double> actual = {10.0, 19.0, 21.0, 5.0};
  const std::vector<double> predicted = {10.0, 10.0, 10.0, 10.0};
  EXPECT_DOUBLE_EQ(interval_coverage_pct(actual, predicted, std::log(2.0)), 75.0);
}

}  // namespace
}  // namespace jouleprof::predict
