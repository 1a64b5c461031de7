#include "jouleprof/statistics.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace jouleprof {
namespace {

TEST(Statistics, SummaryOfKnownSample) {
  const std::vector<double> v{2, 4, 4, 4, 5, 5, 7, 9};
  const RepetitionStats s = summarize(v);
  EXPECT_EQ(s.n, 8u);
  EXPECT_DOUBLE_EQ(s.mean, 5.0);
  EXPECT_DOUBLE_EQ(s.median, 4.5);
  EXPECT_NEAR(s.stdev, 2.138089935, 1e-9);
  // t(0.975, 7) = 2.365
  EXPECT_NEAR(s.ci95_high - s.mean, 2.365 * 2.138089935 / std::sqrt(8.0), 1e-9);
}

TEST(Statistics, DegenerateSamples) {
  EXPECT_EQ(summarize(std::vector<double>{}).n, 0u);
  const RepetitionStats one = summarize(std::vector<double>{3.0});
  EXPECT_DOUBLE_EQ(one.ci95_low, 3.0);
  EXPECT_DOUBLE_EQ(one.ci95_high, 3.0);
}

TEST(Statistics, StudentTApproachesNormal) {
  EXPECT_DOUBLE_EQ(student_t_95(1), 12.706);
  EXPECT_NEAR(student_t_95(60), 2.000, 0.002);
  EXPECT_NEAR(student_t_95(1000), 1.962, 0.001);
}

TEST(Statistics, PearsonR) {
  const std::vector<double> x{1, 2, 3, 4};
  EXPECT_NEAR(*pearson_r(x, std::vector<double>{2, 4, 6, 8}), 1.0, 1e-12);
  EXPECT_NEAR(*pearson_r(x, std::vector<double>{8, 6, 4, 2}), -1.0, 1e-12);
  EXPECT_FALSE(pearson_r(x, std::vector<double>{1, 1, 1, 1}));
}

}  // namespace
}  // namespace jouleprof
