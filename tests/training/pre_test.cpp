#include "training/pre.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "test_support.hpp"
#include "training/pre_runs_fixture.hpp"

namespace jouleprof {
namespace {

using testing::shared_data;
using testing::TempDir;

TEST(Pre, ReadsRunSummariesWithGpuFeaturesFromTheSpecTable) {
  JP_REQUIRE_SHARED_DATA("seaa2023/run_summaries.csv");
  const auto table = read_pre_runs_csv((shared_data() / "seaa2023/run_summaries.csv").string(),
                                       GpuSpecTable::built_in());
  ASSERT_TRUE(table) << table.error().message();
  ASSERT_EQ(table->runs.size(), 236u);
  const PreRun& first = table->runs[0];
  EXPECT_EQ(first.label, "Cloud/mobilenet_v2/0");
  EXPECT_DOUBLE_EQ(first.features.batch_size, 32);
  EXPECT_DOUBLE_EQ(first.features.gpu_cuda_cores, 10496);
  EXPECT_DOUBLE_EQ(first.energy_j, 0.4151704675e6);
  EXPECT_EQ(first.epochs, 98);
  EXPECT_NEAR(first.mean_gpu_utilisation.value(), 0.23004, 1e-5);
  EXPECT_EQ(table->notes.size(), 2u);  // RAM column stand-in, input size default
}

TEST(Pre, BadTablesNameFileLineAndField) {
  TempDir dir;
  auto path = dir.write(
      "runs.csv",
      "batch_size,ram_gb,training_size,validation_size,gflops,gpu,epochs,duration_s,energy_j\n"
      "32,8,1000,100,2.5,RTX 3090,10,100,30000\n"
      "32,8,1000,100,much,RTX 3090,10,100,30000\n");
  auto table = read_pre_runs_csv(path.string(), GpuSpecTable::built_in());
  ASSERT_FALSE(table);
  EXPECT_NE(table.error().message().find(path.string() + ":3"), std::string::npos);
  EXPECT_NE(table.error().message().find("GFLOPs"), std::string::npos);

  path = dir.write(
      "nogpu.csv",
      "batch_size,ram_gb,training_size,validation_size,gflops,gpu,epochs,duration_s,energy_j\n"
      "32,8,1000,100,2.5,Voodoo 2,10,100,30000\n");
  table = read_pre_runs_csv(path.string(), GpuSpecTable::built_in());
  ASSERT_FALSE(table);
  EXPECT_NE(table.error().message().find("Voodoo 2"), std::string::npos);

  // Found by fuzz/runs_csv_fuzz.cpp: 3.3e10 epochs were converted to int (undefined behaviour).
  path = dir.write(
      "epochs.csv",
      "batch_size,ram_gb,training_size,validation_size,gflops,gpu,epochs,duration_s,energy_j\n"
      "32,8,1000,100,2.5,RTX 3090,33272900000,100,30000\n");
  table = read_pre_runs_csv(path.string(), GpuSpecTable::built_in());
  ASSERT_FALSE(table);
  EXPECT_NE(table.error().message().find(path.string() + ":2"), std::string::npos);
  EXPECT_NE(table.error().message().find("from 1 to 1000000"), std::string::npos)
      << table.error().message();

  path = dir.write("cols.csv", "batch_size,gpu\n32,RTX 3090\n");
  table = read_pre_runs_csv(path.string(), GpuSpecTable::built_in());
  ASSERT_FALSE(table);
  EXPECT_NE(table.error().message().find("training_size"), std::string::npos);
}

TEST(Pre, SavedModelPredictsExactlyAsTrained) {
  JP_REQUIRE_SHARED_DATA("seaa2023/run_summaries.csv");
  auto table = read_pre_runs_csv((shared_data() / "seaa2023/run_summaries.csv").string(),
                                 GpuSpecTable::built_in());
  ASSERT_TRUE(table);
  PreOptions options;
  options.target = PreTarget::kAveragePower;
  options.search.iterations = 10;
  const auto model = train_pre(table->runs, options);
  ASSERT_TRUE(model) << model.error().message();
  TempDir dir;
  ASSERT_TRUE(save_pre_model(*model, (dir.path() / "m").string()));
  const auto loaded = load_pre_model((dir.path() / "m").string());
  ASSERT_TRUE(loaded) << loaded.error().message();
  EXPECT_EQ(loaded->target, PreTarget::kAveragePower);
  for (const PreRun& run : table->runs) {
    EXPECT_DOUBLE_EQ(loaded->predict_target(run.features), model->predict_target(run.features));
    EXPECT_DOUBLE_EQ(loaded->predict_linear_target(run.features),
                     model->predict_linear_target(run.features));
  }
  // A 3090 mobilenet run draws ~150 W.
  EXPECT_NEAR(model->predict_target(table->runs[0].features), 150.0, 15.0);
  // The utilisation model travels with a power-target model, and says the same after loading.
  ASSERT_TRUE(model->utilisation.has_value());
  ASSERT_TRUE(loaded->utilisation.has_value());
  EXPECT_EQ(loaded->utilisation->intercepts.size(), 3u);
  // Five architectures: the interval for an unseen one is there, and travels.
  ASSERT_TRUE(model->utilisation->log_half_width.has_value());
  EXPECT_GT(*model->utilisation->log_half_width, 0.0);
  EXPECT_DOUBLE_EQ(loaded->utilisation->log_half_width.value_or(-1.0),
                   *model->utilisation->log_half_width);
  for (const PreRun& run : table->runs) {
    EXPECT_DOUBLE_EQ(loaded->utilisation->predict_power_w(run),
                     model->utilisation->predict_power_w(run));
  }
  EXPECT_NEAR(model->utilisation->predict_power_w(table->runs[0]), 150.0, 15.0);

  dir.write("broken/pre_model.json", "{\"format\": \"something else\"}");
  const auto broken = load_pre_model((dir.path() / "broken").string());
  ASSERT_FALSE(broken);
  EXPECT_NE(broken.error().message().find("format"), std::string::npos);
}

TEST(Pre, TooFewRunsForCrossValidationIsAnError) {
  PreOptions options;
  const auto model = train_pre(std::vector<PreRun>(3), options);
  ASSERT_FALSE(model);
  EXPECT_NE(model.error().message().find("cross-validation"), std::string::npos);
}

TEST(Pre, SizesMustBePositive) {
  TempDir dir;
  auto path = dir.write(
      "runs.csv",
      "batch_size,ram_gb,training_size,validation_size,gflops,gpu,epochs,duration_s,energy_j\n"
      "-32,8,1000,100,2.5,RTX 3090,10,100,30000\n");
  auto table = read_pre_runs_csv(path.string(), GpuSpecTable::built_in());
  ASSERT_FALSE(table);
  EXPECT_EQ(table.error().message(),
            path.string() +
                ":2: field 'batch_size' has value '-32': must be positive (line 2 starts at byte "
                "86)");
}

TEST(Pre, PredictionsOutsideTheTrainingRunsWarn) {
  // The batch size is the same in every run.
  const std::vector<PreRun> runs = testing::synthetic_pre_runs([](int) { return 32.0; });
  PreOptions options;
  options.search.iterations = 4;
  options.search.folds = 3;
  auto model = train_pre(runs, options);
  ASSERT_TRUE(model.ok()) << model.error().message();
  EXPECT_TRUE(model->prediction_warnings(runs[3].features).empty());
  PreFeatures other = runs[3].features;
  other.batch_size = 64;
  const std::vector<std::string> warnings = model->prediction_warnings(other);
  ASSERT_FALSE(warnings.empty());
  EXPECT_NE(warnings[0].find("feature batch_size was 32 in every training run"), std::string::npos)
      << warnings[0];
  EXPECT_TRUE(std::isfinite(model->predict_linear_target(other)));
  EXPECT_LT(std::fabs(model->predict_linear_target(other)), 1e7);
}

}  // namespace
}  // namespace jouleprof
