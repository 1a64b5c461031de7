#include "predict/metrics.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace jouleprof::predict {
namespace {

TEST(Metrics, KnownValues) {
  const std::vector<double> y{10, 20, 40, 100};
  const std::vector<double> p{10.4, 22, 46, 50};  // relative errors 4 %, 10 %, 15 %, 50 %
  const AccuracyMetrics m = accuracy_metrics(y, p);
  EXPECT_EQ(m.n, 4u);
  EXPECT_NEAR(m.rmse_mj, std::sqrt((0.16 + 4 + 36 + 2500) / 4.0), 1e-12);
  EXPECT_NEAR(m.rmspe_pct, 100 * std::sqrt((0.0016 + 0.01 + 0.0225 + 0.25) / 4.0), 1e-9);
  EXPECT_DOUBLE_EQ(m.within_5_pct, 25.0);
  EXPECT_DOUBLE_EQ(m.within_10_pct, 50.0);
  EXPECT_DOUBLE_EQ(m.within_15_pct, 75.0);
}

TEST(Metrics, EmptyIsZero) {
  const AccuracyMetrics m = accuracy_metrics({}, {});
  EXPECT_EQ(m.n, 0u);
  EXPECT_EQ(m.rmse_mj, 0.0);
}

}  // namespace
}  // namespace jouleprof::predict
