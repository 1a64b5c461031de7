#include "training/kernel_ridge.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

namespace jouleprof {
namespace {

TEST(FeatureScaler, ZScoresAndLeavesConstantFeaturesFinite) {
  const std::vector<FeatureRow> rows = {{1.0, 5.0}, {3.0, 5.0}};
  const FeatureScaler s = FeatureScaler::fit(rows);
  EXPECT_DOUBLE_EQ(s.mean[0], 2.0);
  EXPECT_DOUBLE_EQ(s.stdev[0], 1.0);
  EXPECT_DOUBLE_EQ(s.stdev[1], 1.0);
  EXPECT_EQ(s.apply({3.0, 5.0}), (FeatureRow{1.0, 0.0}));
}

TEST(KernelRidge, InterpolatesASmoothFunction) {
  std::vector<FeatureRow> x;
  std::vector<double> y;
  for (int i = 0; i <= 40; ++i) {
    const double v = -2.0 + 0.1 * i;
    x.push_back({v});
    y.push_back(10.0 + std::sin(v));
  }
  const KernelRidge m = KernelRidge::fit(x, y, 1e-6, 1.0);
  for (double v : {-1.55, 0.05, 1.33}) EXPECT_NEAR(m.predict({v}), 10.0 + std::sin(v), 1e-3);
  // Far from the data, the prediction falls back to the mean target (y is centred), not 0.
  EXPECT_NEAR(m.predict({100.0}), m.y_mean, 1e-9);
}

TEST(LinearModel, RecoversALinearFunction) {
  std::vector<FeatureRow> x;
  std::vector<double> y;
  for (int i = 0; i < 20; ++i) {
    x.push_back({static_cast<double>(i), static_cast<double>(i * i % 7), 1.0});
    y.push_back(3.0 + 2.0 * i - 0.5 * (i * i % 7));
  }
  const LinearModel m = LinearModel::fit(x, y);
  EXPECT_NEAR(m.predict({4.0, 2.0, 1.0}), 3.0 + 8.0 - 1.0, 1e-5);
}

TEST(RandomSearch, IsSeededAndPicksAGoodFit) {
  std::mt19937 rng(7);
  std::normal_distribution<double> noise(0.0, 0.01);
  std::vector<FeatureRow> x;
  std::vector<double> y;
  for (int i = 0; i < 60; ++i) {
    const double a = (i % 10) / 3.0, b = (i / 10) / 2.0;
    x.push_back({a, b});
    y.push_back(5.0 + std::exp(-a) * b + noise(rng));
  }
  RandomSearchOptions options;
  options.iterations = 20;
  const RandomSearchResult first = random_search_cv(x, y, options);
  const RandomSearchResult second = random_search_cv(x, y, options);
  EXPECT_EQ(first.alpha, second.alpha);
  EXPECT_EQ(first.gamma, second.gamma);
  EXPECT_LT(first.cv_mape_percent, 2.0);
  options.seed = 8;
  EXPECT_NE(random_search_cv(x, y, options).alpha, first.alpha);
}

TEST(FeatureScaler, AConstantColumnWithRoundingNoiseScalesToZero) {
  // 224 in every row: the mean of eleven 224s is 224 ± rounding, and a spread of ~1e-12 used to
  // turn that rounding into z-scores of ±1 and a prediction for 224.0 into ±1e19.
  std::vector<FeatureRow> rows;
  for (int i = 0; i < 11; ++i) rows.push_back({0.1 * i, 224.0});
  const FeatureScaler s = FeatureScaler::fit(rows);
  EXPECT_FALSE(s.constant[0]);
  EXPECT_TRUE(s.constant[1]);
  EXPECT_EQ(s.mean[1], 224.0);
  EXPECT_EQ(s.stdev[1], 1.0);
  for (const FeatureRow& r : rows) EXPECT_EQ(s.apply(r)[1], 0.0);
  const LinearModel linear = LinearModel::fit(
      [&] {
        std::vector<FeatureRow> scaled;
        for (const FeatureRow& r : rows) scaled.push_back(s.apply(r));
        return scaled;
      }(),
      std::vector<double>(rows.size(), 5.0));
  EXPECT_NEAR(linear.predict(s.apply({0.5, 224.0})), 5.0, 1e-6);
}

}  // namespace
}  // namespace jouleprof
