// `jouleprof kernel-bench` and `jouleprof detect-rules` end to end on the simulated source (a
// constant 40 W: no hardware, and a gate that passes at once), with the gate shortened so that a
// kernel takes a fraction of a second.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <thread>

#include "jouleprof_runner.hpp"
#include "predict/fusion_rules.hpp"
#include "predict/kernel_dataset.hpp"

namespace jouleprof::testing {
namespace {

const std::vector<std::string> kFastSimulatedGate{"--simulate",     "40",   "--repeat",    "2",
                                                  "--interval",     "50",   "--last-n",    "3",
                                                  "--check-period", "0.02", "--tail-wait", "0.02"};

std::vector<std::string> with_gate(std::vector<std::string> args) {
  args.insert(args.end(), kFastSimulatedGate.begin(), kFastSimulatedGate.end());
  return args;
}

TEST(KernelBenchCommand, WritesACsvThatTrainPredictorReads) {
  TempDir dir;
  const std::string csv = (dir.path() / "kernels.csv").string();
  const Invocation inv =
      run_jouleprof(with_gate({"kernel-bench", "--kernel", "relu,fc", "--samples", "6", "--seed",
                               "3", "--output", csv}),
                    dir);
  ASSERT_EQ(inv.exit_code, 0) << inv.out << inv.err;
  EXPECT_NE(inv.out.find("[12/12]"), std::string::npos) << inv.out;
  EXPECT_NE(inv.out.find("NOT MEASURED"), std::string::npos)
      << "a simulated source is not a measurement";
  auto samples = predict::read_kernel_files(std::vector<std::filesystem::path>{csv});
  ASSERT_TRUE(samples.ok()) << samples.error().message();
  ASSERT_EQ(samples->size(), 12u);
  for (const predict::KernelSample& s : *samples) {
    EXPECT_EQ(s.provenance, "simulated:simulated");
    EXPECT_GT(s.energy_mj, 0.0);
  }
  EXPECT_EQ((*samples)[0].config.op, "relu");
  EXPECT_EQ((*samples)[6].config.op, "fc");
#ifdef JOULEPROF_TEST_XGBOOST
  TempDir train_dir;
  const Invocation train =
      run_jouleprof({"train-predictor", "--kernels", csv, "--format", "json"}, train_dir);
  ASSERT_EQ(train.exit_code, 0) << train.err;
  const auto result = nlohmann::json::parse(train.out);
  EXPECT_EQ(result["kernel_types"].size(), 2u);
#endif
}

std::size_t data_rows(const std::string& csv_text) {
  std::size_t rows = 0;
  std::size_t begin = 0;
  for (std::size_t end = csv_text.find('\n'); end != std::string::npos;
       begin = end + 1, end = csv_text.find('\n', begin)) {
    rows += end > begin && csv_text[begin] != '#';
  }
  return rows > 0 ? rows - 1 : 0;  // less the header
}

TEST(KernelBenchCommand, SigintHalfwayKeepsTheCompletedRowsAndListsTheMissingOnes) {
  TempDir dir;
  const std::string csv = (dir.path() / "kernels.csv").string();
  constexpr std::size_t kKernels = 40;
  Result<ChildProcess> child =
      start_jouleprof(with_gate({"kernel-bench", "--kernel", "relu", "--samples",
                                 std::to_string(kKernels), "--output", csv}),
                      dir);
  ASSERT_TRUE(child.ok()) << child.error().message();
  // Halfway, as far as the test can tell: once two rows are written (the run takes ~10 s).
  bool started = false;
  for (int i = 0; i < 1200 && !started; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    started = std::filesystem::exists(csv) && data_rows(read_file(csv)) >= 2;
    if (child->poll()) break;
  }
  ASSERT_TRUE(started) << read_file(dir.path() / "stderr");
  ASSERT_EQ(kill(child->pid(), SIGINT), 0);
  const Invocation inv = finish(*child, dir);
  EXPECT_EQ(inv.exit_code, 130) << inv.out << inv.err;
  EXPECT_NE(inv.out.find(fmt::format("of {} kernels measured", kKernels)), std::string::npos)
      << "jouleprof handled the signal and reported, it was not killed by it: " << inv.out;

  const std::string text = read_file(csv);
  const std::size_t rows = data_rows(text);
  std::size_t missing = 0;
  for (std::size_t at = text.find("# missing relu"); at != std::string::npos;
       at = text.find("# missing relu", at + 1))
    ++missing;
  EXPECT_GE(rows, 2u);
  EXPECT_LT(rows, kKernels) << "the signal came halfway";
  EXPECT_EQ(rows + missing, kKernels) << "every kernel is either a row or listed missing:\n"
                                      << text;
  EXPECT_NE(text.find("stopped before it was measured"), std::string::npos) << text;
  auto samples = predict::read_kernel_files(std::vector<std::filesystem::path>{csv});
  ASSERT_TRUE(samples.ok()) << samples.error().message();
  EXPECT_EQ(samples->size(), rows) << "the rows kept are whole rows";
}

TEST(KernelBenchCommand, ShowSpacePrintsTheSpacesAsJson) {
  TempDir dir;
  const Invocation a = run_jouleprof({"kernel-bench", "--show-space"}, dir);
  ASSERT_EQ(a.exit_code, 0) << a.err;
  const auto spaces = nlohmann::json::parse(a.out);
  EXPECT_TRUE(spaces.contains("conv-bn-relu"));
  EXPECT_TRUE(spaces["conv-bn-relu"].contains("KERNEL_SIZE"));
}

TEST(KernelBenchCommand, ABadSpaceFileNamesFileFieldAndValue) {
  TempDir dir;
  const auto space = dir.write("space.json", R"({"dwconv-bn-relu": {"STRIDES": [1, 0]}})");
  const Invocation inv =
      run_jouleprof(with_gate({"kernel-bench", "--kernel", "dwconv-bn-relu", "--space",
                               space.string(), "--output", (dir.path() / "k.csv").string()}),
                    dir);
  EXPECT_EQ(inv.exit_code, 1);
  EXPECT_NE(inv.err.find("space.json"), std::string::npos) << inv.err;
  EXPECT_NE(inv.err.find("STRIDES"), std::string::npos) << inv.err;
  EXPECT_NE(inv.err.find("0"), std::string::npos) << inv.err;
  EXPECT_EQ(inv.err.find('\n'), inv.err.size() - 1) << "one line: " << inv.err;
}

TEST(KernelBenchCommand, AnUnknownKernelTypeIsAnError) {
  TempDir dir;
  const Invocation inv = run_jouleprof({"kernel-bench", "--kernel", "lstm", "--samples", "1"}, dir);
  EXPECT_EQ(inv.exit_code, 1);
  EXPECT_NE(inv.err.find("lstm"), std::string::npos) << inv.err;
}

TEST(DetectRulesCommand, WritesRulesTheDetectorReads) {
  TempDir dir;
  const std::string out = (dir.path() / "rules.json").string();
  const Invocation inv =
      run_jouleprof(with_gate({"detect-rules", "--only", "BF_conv_bn,BF_relu_add", "--hw", "8",
                               "--channels", "8", "--rules-out", out}),
                    dir);
  ASSERT_EQ(inv.exit_code, 0) << inv.out << inv.err;
  auto rules = predict::FusionRules::from_file(out);
  ASSERT_TRUE(rules.ok()) << rules.error().message();
  EXPECT_EQ(rules->rules().size(), 2u);
  EXPECT_TRUE(rules->rules().contains("BF_conv_bn"));
  const auto doc = nlohmann::json::parse(read_file(out));
  const auto& conv_bn = doc["BF_conv_bn"];
  EXPECT_EQ(conv_bn["energy_provenance"], "simulated:simulated");
  EXPECT_EQ(conv_bn["criterion"], "latency");
  const auto& t = conv_bn["latency_ms"];
  // The written decision is the published criterion applied to the written times.
  const double a = t["producer"], b = t["consumer"], fused = t["fused"];
  EXPECT_EQ(conv_bn["obey"].get<bool>(), a + b - fused > 0.5 * std::min(a, b));
}

TEST(DetectRulesCommand, AnUnknownRuleIsAnError) {
  TempDir dir;
  const Invocation inv = run_jouleprof(with_gate({"detect-rules", "--only", "BF_conv_lstm"}), dir);
  EXPECT_EQ(inv.exit_code, 1);
  EXPECT_NE(inv.err.find("BF_conv_lstm"), std::string::npos) << inv.err;
}

}  // namespace
}  // namespace jouleprof::testing
