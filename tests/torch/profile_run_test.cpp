// profile_workload end to end on a simulated source: the tree sums to the measured total, the
// passes and layers are in it, and the views over it add up.
#include <gtest/gtest.h>

#include <cmath>

#include "jouleprof/torch_profile.hpp"

namespace jouleprof::torch_adapter {
namespace {

double sum_children(const ProfileNode& node) {
  double sum = 0.0;
  for (const ProfileNode& c : node.children) sum += c.energy_j;
  return sum;
}

void expect_children_sum_to_parent(const ProfileNode& node) {
  if (node.children.empty()) return;
  EXPECT_NEAR(node.self_energy_j + sum_children(node), node.energy_j, 1e-9 + 1e-9 * node.energy_j)
      << node.name;
  for (const ProfileNode& c : node.children) expect_children_sum_to_parent(c);
}

TorchProfileOptions simulated(double watts) {
  TorchProfileOptions o;
  o.steps = 2;
  o.warmup = 1;
  o.idle_ns = 100 * kNsPerMs;
  o.monitor.sources.selected = {"simulated"};
  o.monitor.sources.settings["simulate.profile"] = std::to_string(watts) + ":3600";
  return o;
}

TEST(ProfileRun, TreeSumsToTheMeasuredTotal) {
  WorkloadOptions w;
  w.model = "bert-mini";
  w.mode = Mode::kTrain;
  w.batch = 2;
  w.seq = 16;
  w.vocab = 500;
  w.threads = 1;
  auto workload = make_workload(w);
  ASSERT_TRUE(workload.ok()) << workload.error().message();
  auto result = profile_workload(**workload, simulated(50.0));
  ASSERT_TRUE(result.ok()) << result.error().message();
  const Profile& p = result->profile;
  ASSERT_TRUE(p.tree.has_value());
  EXPECT_GT(p.total_energy_j(), 0.0);
  EXPECT_NEAR(p.tree->energy_j, p.total_energy_j(), 1e-6 * p.total_energy_j());
  expect_children_sum_to_parent(*p.tree);
  EXPECT_EQ(result->samples, 4);

  const LayerBlockShares shares = transformer_block_shares(*p.tree);
  EXPECT_GT(shares.layer_energy_j, 0.0);
  EXPECT_GT(shares.attention, 0.0);
  EXPECT_GT(shares.intermediate, 0.0);
  EXPECT_GT(shares.output, 0.0);
  EXPECT_LE(shares.attention + shares.intermediate + shares.output, 1.0 + 1e-9);

  const auto ops = top_operators(*p.tree, 5);
  ASSERT_FALSE(ops.empty());
  for (std::size_t i = 1; i < ops.size(); ++i) EXPECT_GE(ops[i - 1].energy_j, ops[i].energy_j);
}

TEST(ProfileRun, RejectsBadStepCounts) {
  WorkloadOptions w;
  w.model = "mlp";
  w.batch = 2;
  w.hidden = 8;
  auto workload = make_workload(w);
  ASSERT_TRUE(workload.ok());
  TorchProfileOptions o = simulated(10.0);
  o.steps = 0;
  auto result = profile_workload(**workload, o);
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.error().message().find("TorchProfileOptions::steps"), std::string::npos);
}

}  // namespace
}  // namespace jouleprof::torch_adapter
