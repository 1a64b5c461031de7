// `jouleprof kernel-bench` and `jouleprof detect-rules` end to end on the simulated source (a
// constant 40 W: no hardware, and a gate that passes at once), with the gate shortened so that a
// kernel takes a fraction of a second.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

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
