// The public prediction call, end to end: a bundle saved to a directory and a kernel-list model
// file, predicted as `jouleprof predict` predicts them.
#include "jouleprof/prediction.hpp"

#include <gtest/gtest.h>

#include "predict/kernel_training.hpp"
#include "predict/model_prediction.hpp"
#include "predict/training_fixture.hpp"
#include "test_support.hpp"

namespace jouleprof {
namespace {

TEST(Prediction, AModelFileThroughASavedBundleNamesWhatItCouldNotPredict) {
  ::jouleprof::testing::TempDir dir;
  predict::TrainOptions options;
  options.regressor.forest.trees = 20;
  auto trained =
      predict::train_kernel_predictors(predict::testing::synthetic_conv_samples(64), options);
  ASSERT_TRUE(trained.ok()) << trained.error().message();
  const std::filesystem::path bundle = dir.path() / "bundle";
  ASSERT_TRUE(predict::save_bundle(trained->bundle, bundle));
  const std::string model = dir.write("m.json", R"({"net": {
      "layer1": {"op": "conv-bn-relu", "cin": 16, "cout": 32, "ks": 3, "stride": 1,
                 "inputh": 28, "inputw": 28},
      "head": {"op": "fc", "cin": 1024, "cout": 10, "ks": null, "stride": null,
               "inputh": null, "inputw": null}}})")
                                .string();

  const Result<std::vector<PredictedModel>> models = predict_model_energy(model, bundle.string());
  ASSERT_TRUE(models.ok()) << models.error().message();
  ASSERT_EQ(models->size(), 1u);
  const PredictedModel& m = models->front();
  EXPECT_EQ(m.model, "net");
  ASSERT_EQ(m.kernels.size(), 2u);
  EXPECT_EQ(m.predicted_count(), 1u);
  EXPECT_FALSE(m.complete) << "a kernel without a predictor is never counted as 0 mJ";
  EXPECT_EQ(m.missing_types, (std::vector<std::string>{"fc"}));
  const PredictedKernel& conv = m.kernels[0].energy_mj ? m.kernels[0] : m.kernels[1];
  ASSERT_TRUE(conv.energy_mj.has_value());
  EXPECT_DOUBLE_EQ(m.predicted_total_mj, *conv.energy_mj);
  EXPECT_EQ(conv.features.size(), conv.feature_names.size());
  EXPECT_EQ(m.provenance, Provenance::kPredicted);
  EXPECT_NE(m.provenance_detail.find("bundle"), std::string::npos) << m.provenance_detail;

  // The same as the CLI's path through the internals.
  const auto internal = predict::predict_models(model, bundle.string(), {});
  ASSERT_TRUE(internal.ok());
  EXPECT_DOUBLE_EQ(internal->front().predicted_total_mj, m.predicted_total_mj);
}

TEST(Prediction, ABadLayoutOrAMissingBundleIsAnErrorNamingIt) {
  ::jouleprof::testing::TempDir dir;
  const std::string model =
      dir.write("m.json", R"({"net": {"l": {"op": "conv", "cin": 3, "cout": 8, "ks": 3,
                                               "stride": 1, "inputh": 8, "inputw": 8}}})")
          .string();
  const auto layout = predict_model_energy(model, dir.path().string(), {"", "nwhc"});
  ASSERT_FALSE(layout.ok());
  EXPECT_NE(layout.error().message().find("field 'PredictionOptions::layout' has value 'nwhc'"),
            std::string::npos)
      << layout.error().message();
  const auto bundle = predict_model_energy(model, (dir.path() / "nowhere").string());
  ASSERT_FALSE(bundle.ok());
  EXPECT_NE(bundle.error().message().find("nowhere"), std::string::npos)
      << bundle.error().message();
}

}  // namespace
}  // namespace jouleprof
