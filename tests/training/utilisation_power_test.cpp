#include "training/utilisation_power.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "training/gpu_specs.hpp"
#include "training/pre.hpp"

namespace jouleprof {
namespace {

// A run on `gpu` whose power is exactly a + b ln(fraction) TDPs, at a fraction set by its FLOPs.
PreRun run_at(const std::string& gpu, double gflops, double a, double b) {
  PreRun run;
  run.label = gpu + "/" + std::to_string(gflops);
  run.gpu = *GpuSpecTable::built_in().find(gpu);
  set_gpu(run.features, run.gpu);
  run.features.batch_size = 32;
  run.features.training_size = 20000;
  run.features.validation_size = 5000;
  run.features.gflops_per_sample = gflops;
  run.epochs = 10;
  run.duration_s = 3000.0;
  const double fraction =
      achieved_peak_fraction(run.features, run.epochs, run.duration_s, run.gpu.fp32_tflops);
  run.average_power_w = (a + b * std::log(fraction)) * run.features.gpu_tdp_w;
  run.energy_j = run.average_power_w * run.duration_s;
  return run;
}

TEST(UtilisationPower, AchievedFractionCountsBackwardTwiceAndValidationOnce) {
  PreFeatures f;
  f.gflops_per_sample = 1.0;
  f.training_size = 100;
  f.validation_size = 50;
  // (3 × 100 + 50) × 1e9 FLOPs × 2 epochs in 10 s on a 1 TFLOP/s part = 0.07 of peak.
  EXPECT_DOUBLE_EQ(training_run_flops(f, 2), 7e11);
  EXPECT_DOUBLE_EQ(achieved_peak_fraction(f, 2, 10.0, 1.0), 0.07);
  EXPECT_EQ(achieved_peak_fraction(f, 2, 10.0, 0.0), 0.0);
}

TEST(UtilisationPower, RecoversOneSlopeAndAnInterceptPerGpu) {
  std::vector<PreRun> runs;
  for (double gflops : {0.1, 1.0, 4.0}) runs.push_back(run_at("RTX 3090", gflops, 0.95, 0.1));
  // One architecture only on the 3070: its level still comes out, the slope from the 3090.
  runs.push_back(run_at("RTX 3070", 2.0, 0.85, 0.1));
  const auto model = UtilisationPowerModel::fit(runs);
  ASSERT_TRUE(model) << model.error().message();
  EXPECT_NEAR(model->slope, 0.1, 1e-9);
  EXPECT_NEAR(model->intercepts.at("GeForce RTX 3090"), 0.95, 1e-9);
  EXPECT_NEAR(model->intercepts.at("GeForce RTX 3070"), 0.85, 1e-9);
  // An architecture it has not seen, on a known GPU: exact, no warning.
  const PreRun unseen = run_at("RTX 3070", 8.0, 0.85, 0.1);
  std::string warning;
  EXPECT_NEAR(model->predict_power_w(unseen, &warning), unseen.average_power_w, 1e-6);
  EXPECT_TRUE(warning.empty());
  // A GPU it has not seen: the pooled level, and it says so.
  const PreRun other_gpu = run_at("RTX 4090", 1.0, 0.9, 0.1);
  model->predict_power_w(other_gpu, &warning);
  EXPECT_NE(warning.find("no training run used a GeForce RTX 4090"), std::string::npos) << warning;
}

TEST(UtilisationPower, OneInterceptForAllGpusIsTheOrdinaryLine) {
  std::vector<PreRun> runs;
  for (double gflops : {0.1, 1.0}) runs.push_back(run_at("RTX 3090", gflops, 0.9, 0.2));
  runs.push_back(run_at("RTX 3070", 2.0, 0.9, 0.2));
  const auto model = UtilisationPowerModel::fit(runs, false);
  ASSERT_TRUE(model) << model.error().message();
  EXPECT_NEAR(model->slope, 0.2, 1e-9);
  EXPECT_NEAR(model->pooled_intercept, 0.9, 1e-9);
  EXPECT_TRUE(model->intercepts.empty());
}

TEST(UtilisationPower, NoSlopeWithoutTwoFractionsOnOneGpu) {
  const std::vector<PreRun> runs = {run_at("RTX 3090", 1.0, 0.9, 0.1),
                                    run_at("RTX 3070", 2.0, 0.8, 0.1)};
  const auto model = UtilisationPowerModel::fit(runs);
  ASSERT_FALSE(model);
  EXPECT_NE(model.error().message().find("cannot be fitted"), std::string::npos);
}

TEST(UtilisationPower, RidgeOnTheRatioKeepsTheShapeFarFromItsRuns) {
  std::vector<PreRun> runs;
  for (double gflops : {0.1, 0.3, 1.0, 3.0}) {
    for (int repeat = 0; repeat < 3; ++repeat) {
      PreRun run = run_at("RTX 3090", gflops, 0.95, 0.1);
      run.duration_s += 10.0 * repeat;  // repeats differ a little, as measured runs do
      runs.push_back(run);
    }
  }
  RandomSearchOptions search;
  search.iterations = 10;
  search.folds = 3;
  const auto model = UtilisationKrrModel::fit(runs, search);
  ASSERT_TRUE(model) << model.error().message();
  const PreRun far = run_at("RTX 3090", 20.0, 0.95, 0.1);
  EXPECT_NEAR(model->predict_power_w(far) / far.average_power_w, 1.0, 0.02);
}

}  // namespace
}  // namespace jouleprof
