#include "predict/kernel_training.hpp"

#include <gtest/gtest.h>

#include "predict/training_fixture.hpp"
#include "test_support.hpp"

namespace jouleprof::predict {
namespace {

TEST(Split, SeededAndDisjoint) {
  auto [train, test] = split_indices(437, 0.8, 42);
  EXPECT_EQ(train.size(), 350u);
  EXPECT_EQ(test.size(), 87u);
  std::vector<bool> seen(437, false);
  for (auto i : train) seen[i] = true;
  for (auto i : test) {
    EXPECT_FALSE(seen[i]);
    seen[i] = true;
  }
  EXPECT_EQ(std::count(seen.begin(), seen.end(), true), 437);
  EXPECT_EQ(split_indices(437, 0.8, 42), split_indices(437, 0.8, 42));
  EXPECT_NE(split_indices(437, 0.8, 42).second, split_indices(437, 0.8, 7).second);
}

TEST(Training, SameSeedSameResult) {
  auto samples = testing::synthetic_conv_samples(100);
  TrainOptions options;
  options.regressor.forest.trees = 30;
  auto a = train_kernel_predictors(samples, options);
  auto b = train_kernel_predictors(samples, options);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->evaluations[0].forest.rmse_mj, b->evaluations[0].forest.rmse_mj);
  EXPECT_EQ(a->evaluations[0].boosting.rmse_mj, b->evaluations[0].boosting.rmse_mj);
}

TEST(Training, TooFewSamplesAreSkippedAndListed) {
  auto samples = testing::synthetic_conv_samples(40);
  KernelSample pool;
  pool.config.op = "maxpool", pool.config.hw = 8, pool.config.cin = 8, pool.config.cout = 8;
  pool.config.kernel_size = 2, pool.config.stride = 2, pool.energy_mj = 1;
  samples.push_back(pool);
  TrainOptions options;
  options.regressor.forest.trees = 10;
  auto result = train_kernel_predictors(samples, options);
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result->skipped, (std::vector<std::string>{"maxpool (1 samples)"}));
  EXPECT_EQ(result->bundle.find("maxpool"), nullptr);
}

// The seeded accuracy target: on both published conv-bn-relu sets the random forest beats the
// FLOPs-linear baseline in ±10 % accuracy and in RMSPE on the held-out 20 %. Against the best
// simple baseline (issue 32) it is 20 % lower in RMSPE on the phone CPU set only; on the phone
// GPU set the verdict must say plainly that it is not, naming k nearest neighbours. And the
// forest's 90 % interval covers at least 85 % of the held-out kernels.
struct PublishedSet {
  const char* config;
  const char* energy;
  std::size_t kernels;
  bool beats_baselines_by_20_pct;
};

class PublishedAccuracy : public ::testing::TestWithParam<PublishedSet> {};

TEST_P(PublishedAccuracy, ForestBeatsTheFlopsBaseline) {
  JP_REQUIRE_SHARED_DATA(std::string("deepen2023/kernels/") + GetParam().config);
  const auto dir = jouleprof::testing::shared_data() / "deepen2023/kernels";
  const std::vector<std::filesystem::path> files{dir / GetParam().config, dir / GetParam().energy};
  auto samples = read_kernel_files(files);
  ASSERT_TRUE(samples.ok()) << samples.error().message();
  ASSERT_EQ(samples->size(), GetParam().kernels);
  auto result = train_kernel_predictors(*samples, TrainOptions{});  // seed 42, 80/20
  ASSERT_TRUE(result.ok()) << result.error().message();
  ASSERT_EQ(result->evaluations.size(), 1u);
  const TypeEvaluation& e = result->evaluations[0];
  ASSERT_TRUE(e.flops_baseline.has_value());
  EXPECT_GT(e.forest.within_10_pct, e.flops_baseline->within_10_pct);
  EXPECT_LT(e.forest.rmspe_pct, e.flops_baseline->rmspe_pct);
  ASSERT_TRUE(e.knn.has_value());
  ASSERT_TRUE(e.log_linear.has_value());
  EXPECT_GE(e.knn_k, 1);
  const auto verdict = compare_with_baselines(e, RegressorKind::kRandomForest);
  ASSERT_TRUE(verdict.has_value());
  EXPECT_EQ(verdict->meets_margin, GetParam().beats_baselines_by_20_pct) << verdict->text;
  // The 90 % interval from the training part's CV residuals covers ≥ 85 % of the held-out part.
  ASSERT_TRUE(e.interval.has_value());
  EXPECT_EQ(e.interval->level, 0.9);
  EXPECT_GE(e.interval->held_out_coverage_pct, 85.0);
  EXPECT_GT(e.interval->log_half_width, 0.0);
  if (!verdict->meets_margin) {
    EXPECT_NE(verdict->text.find("does NOT beat"), std::string::npos) << verdict->text;
    EXPECT_NE(verdict->text.find(verdict->best_baseline), std::string::npos) << verdict->text;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Sets, PublishedAccuracy,
    ::testing::Values(PublishedSet{"conv-bn-relu_test.json", "conv-bn-relu_energy.json", 437, true},
                      PublishedSet{"conv_GPU.json", "conv_energy_GPU.json", 592, false}),
    [](const auto& param_info) {
      return param_info.param.kernels == 437 ? "PhoneCpu437" : "PhoneGpu592";
    });

}  // namespace
}  // namespace jouleprof::predict
