#include "predict/model_prediction.hpp"

#include <gtest/gtest.h>

#include "predict/kernel_training.hpp"
#include "predict/training_fixture.hpp"

namespace jouleprof::predict {
namespace {

TEST(ModelPrediction, KernelsWithoutPredictorMakeTheTotalIncomplete) {
  TrainOptions options;
  options.regressor.forest.trees = 20;
  auto samples = testing::synthetic_conv_samples(64);
  auto trained = train_kernel_predictors(samples, options);
  ASSERT_TRUE(trained.ok());
  trained->bundle.origin = "test-bundle";

  ModelKernels model{"m", "kernel-list", {}};
  DetectedKernel conv;
  conv.config = samples[3].config;
  DetectedKernel fc;
  fc.config.name = "fc", fc.config.op = "fc", fc.config.cin = 64, fc.config.cout = 10;
  model.kernels = {conv, fc, conv};

  auto p = predict_model(trained->bundle, model);
  ASSERT_TRUE(p.ok()) << p.error().message();
  EXPECT_FALSE(p->complete);
  EXPECT_EQ(p->predicted_count(), 2u);
  EXPECT_EQ(p->missing_types, (std::vector<std::string>{"fc"}));
  ASSERT_TRUE(p->kernels[0].energy_mj.has_value());
  EXPECT_FALSE(p->kernels[1].energy_mj.has_value());
  EXPECT_NE(p->kernels[1].unpredicted_reason.find("fc"), std::string::npos);
  EXPECT_DOUBLE_EQ(p->predicted_total_mj, *p->kernels[0].energy_mj + *p->kernels[2].energy_mj);
  EXPECT_EQ(p->provenance, Provenance::kPredicted);
  EXPECT_NE(p->provenance_detail.find("test-bundle"), std::string::npos);
  // Each predicted kernel carries its predictor's interval; the total, their sums.
  const PredictionInterval& interval = *trained->bundle.find("conv-bn-relu")->interval;
  ASSERT_TRUE(p->kernels[0].low_mj && p->kernels[0].high_mj);
  EXPECT_DOUBLE_EQ(*p->kernels[0].low_mj, interval.low_mj(*p->kernels[0].energy_mj));
  EXPECT_DOUBLE_EQ(*p->kernels[0].high_mj, interval.high_mj(*p->kernels[0].energy_mj));
  EXPECT_LT(*p->kernels[0].low_mj, *p->kernels[0].energy_mj);
  ASSERT_TRUE(p->predicted_low_mj && p->predicted_high_mj);
  EXPECT_DOUBLE_EQ(*p->predicted_high_mj, *p->kernels[0].high_mj + *p->kernels[2].high_mj);

  model.kernels = {conv};
  auto complete = predict_model(trained->bundle, model);
  ASSERT_TRUE(complete.ok());
  EXPECT_TRUE(complete->complete);
}

}  // namespace
}  // namespace jouleprof::predict
