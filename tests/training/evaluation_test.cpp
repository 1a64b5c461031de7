// The accuracy targets of issue 7 on the seaa2023 data, seeded: STEP MAPE ≤ 3 %, PRE MAPE ≤ 10 %
// on the 30 % test split, each at least 2× better than Green Algorithms and ML CO2. Issue 32: STEP
// with s, w and its rule chosen by cross-validation over runs ≤ 0.5 %, and PRE on an architecture
// it has not seen ≤ 8 % overall, ≤ 15 % on each.
#include <gtest/gtest.h>

#include "test_support.hpp"
#include "testing/training_evaluation.hpp"

namespace jouleprof {
namespace {

using testing::shared_data;

TEST(TrainingEvaluation, StepMeetsItsTargets) {
  JP_REQUIRE_SHARED_DATA("seaa2023/runs.csv");
  const auto report = evaluate_step((shared_data() / "seaa2023/runs.csv").string(), StepOptions{},
                                    GpuSpecTable::built_in());
  ASSERT_TRUE(report) << report.error().message();
  const MethodScore* step = report->find("STEP (s=10, w=5)");
  const MethodScore* green = report->find("Green Algorithms (GPU part)");
  const MethodScore* ml_co2 = report->find("ML CO2 (TDP x T)");
  ASSERT_TRUE(step && green && ml_co2);
  EXPECT_EQ(step->runs, 80u);
  EXPECT_LE(step->mape_percent, 3.0);
  EXPECT_LE(2.0 * step->mape_percent, green->mape_percent);
  EXPECT_LE(2.0 * step->mape_percent, ml_co2->mape_percent);
  // Chosen on the other folds' runs only, so the figure is not tuned on the runs it scores.
  const MethodScore* cross_validated = report->find("STEP, s/w/rule by 5-fold CV over runs");
  ASSERT_NE(cross_validated, nullptr);
  EXPECT_EQ(cross_validated->runs, 80u);
  EXPECT_LE(cross_validated->mape_percent, 0.5);
}

TEST(TrainingEvaluation, PreMeetsItsTargetsOnTheSeededTestSplit) {
  JP_REQUIRE_SHARED_DATA("seaa2023/run_summaries.csv");
  const auto report = evaluate_pre((shared_data() / "seaa2023/run_summaries.csv").string(), 0.3, 42,
                                   RandomSearchOptions{}, GpuSpecTable::built_in());
  ASSERT_TRUE(report) << report.error().message();
  const MethodScore* green = report->find("Green Algorithms (GPU part)");
  const MethodScore* ml_co2 = report->find("ML CO2 (TDP x T)");
  ASSERT_TRUE(green && ml_co2);
  for (const char* method : {"PRE KRR (power x T)", "PRE KRR (epoch energy x N)"}) {
    const MethodScore* pre = report->find(method);
    ASSERT_NE(pre, nullptr) << method;
    EXPECT_EQ(pre->runs, 71u);
    EXPECT_LE(pre->mape_percent, 10.0) << method;
    EXPECT_LE(2.0 * pre->mape_percent, green->mape_percent) << method;
    EXPECT_LE(2.0 * pre->mape_percent, ml_co2->mape_percent) << method;
    // Kernel ridge beats the linear model on the same features (the paper's finding).
    const std::string linear = std::string("linear") + std::string(method).substr(7);
    ASSERT_NE(report->find(linear), nullptr) << linear;
    EXPECT_LT(pre->mape_percent, report->find(linear)->mape_percent);
  }
  // Issue 32 keeps the random-split figure: the utilisation model with a ridge on its ratio does
  // at least as well as PRE's ridge on repeats of known configurations.
  const MethodScore* hybrid = report->find("utilisation model + KRR on ratio");
  ASSERT_NE(hybrid, nullptr);
  EXPECT_LE(hybrid->mape_percent, report->find("PRE KRR (power x T)")->mape_percent);
}

TEST(TrainingEvaluation, PreHoldsOnAnArchitectureItHasNotSeen) {
  JP_REQUIRE_SHARED_DATA("seaa2023/run_summaries.csv");
  const auto report =
      evaluate_pre_by_architecture((shared_data() / "seaa2023/run_summaries.csv").string(),
                                   RandomSearchOptions{}, GpuSpecTable::built_in());
  ASSERT_TRUE(report) << report.error().message();
  const std::string all = "all, each unseen";
  const MethodScore* utilisation = report->find("utilisation model (power x T)", all);
  const MethodScore* krr = report->find("PRE KRR (power x T)", all);
  const MethodScore* green = report->find("Green Algorithms (GPU part)", all);
  ASSERT_TRUE(utilisation && krr && green);
  EXPECT_EQ(utilisation->runs, 236u);
  EXPECT_LE(utilisation->mape_percent, 8.0);
  EXPECT_LE(2.0 * utilisation->mape_percent, krr->mape_percent);
  EXPECT_LE(2.0 * utilisation->mape_percent, green->mape_percent);
  for (const char* architecture :
       {"mobilenet_v2", "nasnet_mobile", "resnet50", "vgg16", "xception"}) {
    const MethodScore* one =
        report->find("utilisation model (power x T)", std::string("without ") + architecture);
    ASSERT_NE(one, nullptr) << architecture;
    EXPECT_LE(one->mape_percent, 15.0) << architecture;
  }
  // Its 90 % interval, as wide as leaving each training architecture out showed, holds ≥ 85 % of
  // the unseen architecture's runs.
  ASSERT_TRUE(report->interval_coverage_percent.has_value());
  EXPECT_GE(*report->interval_coverage_percent, 85.0);
  // The per-GPU level is what carries over: one level for every GPU is far worse.
  const MethodScore* pooled = report->find("utilisation model, one intercept", all);
  ASSERT_NE(pooled, nullptr);
  EXPECT_LE(2.0 * utilisation->mape_percent, pooled->mape_percent);
}

}  // namespace
}  // namespace jouleprof
