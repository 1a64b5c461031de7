#include "predict/predictor_bundle.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "predict/kernel_training.hpp"
#include "predict/training_fixture.hpp"
#include "test_support.hpp"

namespace jouleprof::predict {
namespace {

using jouleprof::testing::TempDir;

PredictorBundle trained_bundle(RegressorKind kind) {
  TrainOptions options;
  options.regressor.forest.trees = 20;
  options.regressor.boosting.rounds = 20;
  options.bundle_regressor = kind;
  auto samples = testing::synthetic_conv_samples(128);
  auto result = train_kernel_predictors(samples, options);
  EXPECT_TRUE(result.ok()) << result.error().message();
  return std::move(result->bundle);
}

FeatureMatrix probe_rows() {
  FeatureMatrix m;
  for (const auto& s : testing::synthetic_conv_samples(128)) m.add_row(*features_of(s.config));
  return m;
}

class BundleRoundTrip : public ::testing::TestWithParam<RegressorKind> {};

TEST_P(BundleRoundTrip, LoadsBackToIdenticalPredictions) {
  TempDir dir;
  PredictorBundle bundle = trained_bundle(GetParam());
  ASSERT_TRUE(save_bundle(bundle, dir.path() / "bundle").ok());
  auto loaded = load_bundle(dir.path() / "bundle");
  ASSERT_TRUE(loaded.ok()) << loaded.error().message();
  EXPECT_EQ(loaded->regressor, GetParam());
  EXPECT_EQ(loaded->seed, bundle.seed);
  ASSERT_NE(loaded->find("conv-bn-relu"), nullptr);
  EXPECT_EQ(loaded->find("conv-bn-relu")->n_train, bundle.find("conv-bn-relu")->n_train);
  EXPECT_DOUBLE_EQ(loaded->find("conv-bn-relu")->test.rmspe_pct,
                   bundle.find("conv-bn-relu")->test.rmspe_pct);
  const FeatureMatrix rows = probe_rows();
  auto before = bundle.find("conv-bn-relu")->model.predict_mj(rows);
  auto after = loaded->find("conv-bn-relu")->model.predict_mj(rows);
  ASSERT_TRUE(before.ok() && after.ok());
  EXPECT_EQ(*before, *after);  // bit-identical
  const auto& interval = bundle.find("conv-bn-relu")->interval;
  ASSERT_TRUE(interval.has_value());
  ASSERT_TRUE(loaded->find("conv-bn-relu")->interval.has_value());
  EXPECT_DOUBLE_EQ(loaded->find("conv-bn-relu")->interval->log_half_width,
                   interval->log_half_width);
  EXPECT_DOUBLE_EQ(loaded->find("conv-bn-relu")->interval->held_out_coverage_pct,
                   interval->held_out_coverage_pct);
  EXPECT_TRUE(std::filesystem::exists(dir.path() / "bundle/models/conv-bn-relu.json"));
  EXPECT_TRUE(std::filesystem::exists(dir.path() / "bundle/feature_spec.json"));
}

INSTANTIATE_TEST_SUITE_P(Regressors, BundleRoundTrip,
                         ::testing::Values(RegressorKind::kRandomForest, RegressorKind::kBoosting),
                         [](const auto& param_info) {
                           return param_info.param == RegressorKind::kRandomForest ? "Forest"
                                                                                   : "Boosting";
                         });

void edit_json(const std::filesystem::path& path,
               const std::function<void(nlohmann::json&)>& edit) {
  nlohmann::json doc;
  {
    std::ifstream in(path);
    in >> doc;
  }
  edit(doc);
  std::ofstream(path) << doc.dump();
}

TEST(Bundle, RejectsAnotherVersion) {
  TempDir dir;
  PredictorBundle bundle = trained_bundle(RegressorKind::kRandomForest);
  ASSERT_TRUE(save_bundle(bundle, dir.path()).ok());
  edit_json(dir.path() / "manifest.json", [](nlohmann::json& j) { j["version"] = 99; });
  auto loaded = load_bundle(dir.path());
  ASSERT_FALSE(loaded.ok());
  EXPECT_NE(loaded.error().message().find("version"), std::string::npos)
      << loaded.error().message();
}

TEST(Bundle, RejectsFeaturesInAnotherOrder) {
  TempDir dir;
  PredictorBundle bundle = trained_bundle(RegressorKind::kRandomForest);
  ASSERT_TRUE(save_bundle(bundle, dir.path()).ok());
  edit_json(dir.path() / "feature_spec.json", [](nlohmann::json& j) {
    auto& f = j["conv-bn-relu"]["features"];
    std::swap(f[0], f[1]);
  });
  auto loaded = load_bundle(dir.path());
  ASSERT_FALSE(loaded.ok());
  EXPECT_NE(loaded.error().message().find("conv-bn-relu.features"), std::string::npos)
      << loaded.error().message();
}

TEST(Bundle, MissingDirectoryIsNotFound) {
  auto loaded = load_bundle("/nonexistent/bundle");
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.error().code(), ErrorCode::kNotFound);
}

}  // namespace
}  // namespace jouleprof::predict
