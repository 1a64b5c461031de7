// jouleprof estimate end to end: a PRE model trained on a small table, and its prediction's
// figures in the unit their size calls for.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "jouleprof_runner.hpp"

namespace jouleprof {
namespace {

using testing::run_jouleprof;

// Twelve RTX 3090 runs of 10 to 21 epochs, 120 to 219 kJ each.
std::string runs_table() {
  std::string text =
      "batch_size,ram_gb,training_size,validation_size,gflops,gpu,epochs,duration_s,energy_j\n";
  for (int i = 0; i < 12; ++i) {
    text += fmt::format("{},{},{},200,{},RTX 3090,{},{},{}\n", 32 + 16 * (i % 4), 4 + i % 3,
                        1000 + 100 * i, 0.5 + 0.1 * i, 10 + i, 600 + 30 * i, 120000 + 9000 * i);
  }
  return text;
}

TEST(EstimateCommand, APredictionOfKilojoulesPrintsKilojoules) {
  testing::TempDir dir;
  const std::string runs = dir.write("runs.csv", runs_table()).string();
  const std::string model = (dir.path() / "model").string();
  const auto train = run_jouleprof(
      {"estimate", "train", "--data", runs, "--output", model, "--iterations", "4", "--folds", "3"},
      dir);
  ASSERT_EQ(train.exit_code, 0) << train.err;
  const auto predict = run_jouleprof(
      {"estimate", "predict", "--model", model, "--batch", "48", "--gflops", "1", "--gpu",
       "RTX 3090", "--ram-gb", "5", "--train-size", "1500", "--val-size", "200", "--epochs", "10"},
      dir);
  ASSERT_EQ(predict.exit_code, 0) << predict.err;
  EXPECT_NE(predict.out.find(" kJ per epoch\n"), std::string::npos) << predict.out;
  EXPECT_NE(predict.out.find(" kJ (epoch energy × 10 epochs); linear baseline "), std::string::npos)
      << predict.out;
  EXPECT_EQ(predict.out.find("MJ"), std::string::npos) << predict.out;
  EXPECT_EQ(predict.out.find("e+"), std::string::npos) << predict.out;
}

TEST(EstimateCommand, APowerModelPrintsTheUtilisationModelBesideTheRidge) {
  testing::TempDir dir;
  const std::string runs = dir.write("runs.csv", runs_table()).string();
  const std::string model = (dir.path() / "model").string();
  const auto train = run_jouleprof({"estimate", "train", "--data", runs, "--target", "power",
                                    "--output", model, "--iterations", "4", "--folds", "3"},
                                   dir);
  ASSERT_EQ(train.exit_code, 0) << train.err;
  const std::vector<std::string> args = {
      "estimate",     "predict", "--model",    model,      "--batch",    "48",
      "--gflops",     "1",       "--gpu",      "RTX 3090", "--ram-gb",   "5",
      "--train-size", "1500",    "--val-size", "200",      "--duration", "700"};
  const auto without_epochs = run_jouleprof(args, dir);
  ASSERT_EQ(without_epochs.exit_code, 0) << without_epochs.err;
  EXPECT_NE(without_epochs.out.find("note: the utilisation model needs both the duration and the "
                                    "epochs"),
            std::string::npos)
      << without_epochs.out;
  std::vector<std::string> with_epochs = args;
  with_epochs.insert(with_epochs.end(), {"--epochs", "12"});
  const auto predict = run_jouleprof(with_epochs, dir);
  ASSERT_EQ(predict.exit_code, 0) << predict.err;
  EXPECT_NE(predict.out.find("utilisation model (for an architecture unlike the training runs'): "),
            std::string::npos)
      << predict.out;
}

}  // namespace
}  // namespace jouleprof
