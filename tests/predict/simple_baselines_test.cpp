#include "predict/simple_baselines.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace jouleprof::predict {
namespace {

TEST(LogLinear, RecoversAPowerLawOfFlopsAndParams) {
  std::vector<double> flops, params, energy;
  for (int i = 1; i <= 6; ++i) {
    for (int j = 1; j <= 3; ++j) {
      flops.push_back(1e6 * i * i * j);
      params.push_back(1e3 * j + 7.0 * i);
      energy.push_back(0.02 * std::pow(flops.back(), 0.8) * std::pow(params.back(), 0.1));
    }
  }
  const auto model = LogLinearModel::fit(flops, params, energy);
  ASSERT_TRUE(model) << model.error().message();
  EXPECT_NEAR(model->flops_exponent, 0.8, 1e-9);
  EXPECT_NEAR(model->params_exponent, 0.1, 1e-9);
  EXPECT_NEAR(model->predict_mj(2e7, 500.0), 0.02 * std::pow(2e7, 0.8) * std::pow(500.0, 0.1),
              1e-6);
}

TEST(LogLinear, ParamsThatFollowFlopsLeaveItUndetermined) {
  const std::vector<double> flops = {1, 2, 4, 8}, params = {2, 4, 8, 16}, energy = {1, 2, 3, 4};
  const auto model = LogLinearModel::fit(flops, params, energy);
  ASSERT_FALSE(model);
  EXPECT_NE(model.error().message().find("undetermined"), std::string::npos);
  EXPECT_FALSE(LogLinearModel::fit(std::vector<double>{1, 2, 0}, std::vector<double>{1, 3, 2},
                                   std::vector<double>{1, 2, 3}));
}

// Two clusters of kernels, each with one energy level: CV prefers a k that stays in a cluster,
// and a new kernel gets its cluster's energy.
TEST(Knn, ChoosesKByCrossValidationAndAveragesInLog) {
  std::vector<std::vector<double>> x;
  std::vector<double> energy;
  for (int i = 0; i < 10; ++i) {
    x.push_back({7.0, 32.0 + i});
    energy.push_back(2.0);
    x.push_back({56.0, 512.0 + i});
    energy.push_back(200.0);
  }
  const auto model = KnnRegressor::fit(x, energy, kKnnCandidates, 5, 42);
  ASSERT_TRUE(model) << model.error().message();
  EXPECT_LE(model->k, 7);
  EXPECT_NEAR(model->cv_rmspe_pct, 0.0, 1e-9);
  EXPECT_NEAR(model->predict_mj({7.0, 40.0}), 2.0, 1e-9);
  EXPECT_NEAR(model->predict_mj({56.0, 515.0}), 200.0, 1e-9);
  // The same seed, the same choice.
  EXPECT_EQ(KnnRegressor::fit(x, energy, kKnnCandidates, 5, 42)->k, model->k);
}

TEST(Knn, TooFewRowsOrANonPositiveEnergyIsAnError) {
  const std::vector<std::vector<double>> x = {{1.0}, {2.0}, {3.0}};
  EXPECT_FALSE(KnnRegressor::fit(x, std::vector<double>{1, 2, 3}, kKnnCandidates, 5, 1));
  const auto zero = KnnRegressor::fit(x, std::vector<double>{1, 0, 3}, kKnnCandidates, 2, 1);
  ASSERT_FALSE(zero);
  EXPECT_NE(zero.error().message().find("must be positive"), std::string::npos);
}

}  // namespace
}  // namespace jouleprof::predict
