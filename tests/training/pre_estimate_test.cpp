// The public PRE call: a saved model, a GPU by name and the run's features give the energy, as
// `jouleprof estimate predict` prints it.
#include <gtest/gtest.h>

#include "jouleprof/pre.hpp"
#include "test_support.hpp"
#include "training/gpu_specs.hpp"
#include "training/pre.hpp"
#include "training/pre_runs_fixture.hpp"

namespace jouleprof {
namespace {

// A quick search: these tests check the plumbing, not the fit.
Result<PreModel> quick_model(const std::vector<PreRun>& runs, PreTarget target) {
  PreOptions options;
  options.target = target;
  options.search.iterations = 4;
  options.search.folds = 3;
  return train_pre(runs, options);
}

TEST(PreEstimate, ASavedModelGivesTheRunsEnergyForTheNamedGpu) {
  ::jouleprof::testing::TempDir dir;
  const std::vector<PreRun> runs =
      ::jouleprof::testing::synthetic_pre_runs([](int i) { return 32.0 + 8.0 * (i % 3); });
  const Result<PreModel> model = quick_model(runs, PreTarget::kEpochEnergy);
  ASSERT_TRUE(model.ok()) << model.error().message();
  ASSERT_TRUE(save_pre_model(*model, dir.path().string()));

  PreEstimateRequest request;
  request.model_dir = dir.path().string();
  request.gpu = "RTX 3090";
  request.features = runs[4].features;
  request.features.gpu_tdp_w = 1.0;  // filled in from the GPU, whatever the caller left here
  const Result<PreEstimate> without_epochs = estimate_training_energy(request);
  ASSERT_TRUE(without_epochs.ok()) << without_epochs.error().message();
  EXPECT_FALSE(without_epochs->energy_j.has_value()) << "an epoch-energy model needs the epochs";
  EXPECT_EQ(without_epochs->unit, "J per epoch");
  EXPECT_EQ(without_epochs->provenance, Provenance::kPredicted);
  EXPECT_GT(without_epochs->gpu_tdp_w, 100.0);

  request.epochs = 20;
  const Result<PreEstimate> e = estimate_training_energy(request);
  ASSERT_TRUE(e.ok());
  PreFeatures with_gpu = request.features;
  set_gpu(with_gpu, *GpuSpecTable::built_in().find("RTX 3090"));
  EXPECT_DOUBLE_EQ(e->prediction, model->predict_target(with_gpu));
  ASSERT_TRUE(e->energy_j.has_value());
  EXPECT_DOUBLE_EQ(*e->energy_j, 20.0 * e->prediction);
  EXPECT_EQ(e->energy_rule, "epoch energy × 20 epochs");
  EXPECT_TRUE(e->warnings.empty());
}

TEST(PreEstimate, APowerModelAlsoGivesTheUtilisationModelsFigureGivenDurationAndEpochs) {
  ::jouleprof::testing::TempDir dir;
  std::vector<PreRun> runs = ::jouleprof::testing::synthetic_pre_runs([](int) { return 32.0; });
  for (PreRun& run : runs) run.gpu = *GpuSpecTable::built_in().find("RTX 3090");
  const Result<PreModel> model = quick_model(runs, PreTarget::kAveragePower);
  ASSERT_TRUE(model.ok()) << model.error().message();
  ASSERT_TRUE(model->utilisation.has_value());
  ASSERT_TRUE(save_pre_model(*model, dir.path().string()));

  PreEstimateRequest request;
  request.model_dir = dir.path().string();
  request.gpu = "RTX 3090";
  request.features = runs[4].features;
  request.duration_s = runs[4].duration_s;
  const Result<PreEstimate> without_epochs = estimate_training_energy(request);
  ASSERT_TRUE(without_epochs.ok()) << without_epochs.error().message();
  EXPECT_TRUE(without_epochs->energy_j.has_value());
  EXPECT_FALSE(without_epochs->utilisation_power_w.has_value());
  EXPECT_NE(without_epochs->utilisation_note.find("needs both the duration and the epochs"),
            std::string::npos)
      << without_epochs->utilisation_note;

  request.epochs = runs[4].epochs;
  const Result<PreEstimate> e = estimate_training_energy(request);
  ASSERT_TRUE(e.ok()) << e.error().message();
  ASSERT_TRUE(e->utilisation_power_w.has_value());
  EXPECT_DOUBLE_EQ(*e->utilisation_power_w, model->utilisation->predict_power_w(runs[4]));
  EXPECT_DOUBLE_EQ(*e->utilisation_energy_j, *e->utilisation_power_w * runs[4].duration_s);
  EXPECT_TRUE(e->utilisation_note.empty()) << e->utilisation_note;
  // The synthetic runs name no architectures, so there is no interval for an unseen one.
  EXPECT_FALSE(e->utilisation_low_j.has_value());

  // A GPU no training run used: the pooled level, and the note says so.
  request.gpu = "RTX 3070";
  const Result<PreEstimate> other = estimate_training_energy(request);
  ASSERT_TRUE(other.ok()) << other.error().message();
  ASSERT_TRUE(other->utilisation_power_w.has_value());
  EXPECT_NE(other->utilisation_note.find("no training run used a GeForce RTX 3070"),
            std::string::npos)
      << other->utilisation_note;
}

TEST(PreEstimate, AnUnknownGpuOrAMissingModelIsAnError) {
  ::jouleprof::testing::TempDir dir;
  PreEstimateRequest request;
  request.model_dir = (dir.path() / "none").string();
  request.gpu = "RTX 3090";
  const Result<PreEstimate> missing = estimate_training_energy(request);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message().find("none"), std::string::npos) << missing.error().message();
}

}  // namespace
}  // namespace jouleprof
