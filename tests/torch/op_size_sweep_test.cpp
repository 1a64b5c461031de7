// sweep_op_sizes: `measure --op` as a library call (the command line's rows and timing:
// tests/tools/measure_command_test.cpp).
#include "jouleprof/op_size_sweep.hpp"

#include <gtest/gtest.h>

namespace jouleprof::torch_adapter {
namespace {

OpSizeSweepOptions simulated_matmul(std::vector<std::int64_t> sizes) {
  OpSizeSweepOptions options;
  options.op = "matmul";
  options.sizes = std::move(sizes);
  options.monitor.sources.selected = {"simulated"};
  options.monitor.sources.settings["simulate.watts"] = "40";
  options.gated = gated_preset(GatedPreset::kQuick);
  options.gated.repetitions = 1;
  return options;
}

TEST(OpSizeSweep, EachSizeIsSeenAsItIsMeasured) {
  std::vector<std::int64_t> seen;
  const Result<OpSizeSweep> sweep = sweep_op_sizes(
      simulated_matmul({16}), nullptr, [&seen](const OpSizePoint& p) { seen.push_back(p.size); });
  ASSERT_TRUE(sweep.ok()) << sweep.error().message();
  ASSERT_EQ(sweep->points.size(), 1u);
  EXPECT_EQ(seen, std::vector<std::int64_t>{16});
  const OpSizePoint& p = sweep->points.front();
  EXPECT_DOUBLE_EQ(p.input_elements, 2.0 * 16 * 16);
  EXPECT_GT(p.call_s, 0.0);
  ASSERT_FALSE(p.channels.empty());
  EXPECT_EQ(p.channels.front().provenance, Provenance::kSimulated);
  EXPECT_FALSE(sweep->net_energy_vs_input_r.has_value());  // one size: no correlation
}

TEST(OpSizeSweep, AStopListsTheSizesLeftAsMissing) {
  ProgressReporter progress;
  progress.request_stop();
  const Result<OpSizeSweep> sweep = sweep_op_sizes(simulated_matmul({16, 32}), &progress);
  ASSERT_TRUE(sweep.ok());
  EXPECT_TRUE(sweep->points.empty());
  ASSERT_EQ(sweep->missing.size(), 2u);
  EXPECT_EQ(sweep->missing[1], "size 32: stopped before it was measured");
}

// A gate that gives up on every repetition of every size measures nothing, and says so for each
// size: the command line turns a non-empty `missing` into a failing exit code.
TEST(OpSizeSweep, AGateThatNeverSettlesLeavesEverySizeMissing) {
  OpSizeSweepOptions options = simulated_matmul({8, 16});
  options.monitor.sources.settings.erase("simulate.watts");
  options.monitor.sources.settings["simulate.profile"] = "5:0.05;95:0.05";
  options.gated.interval_ns = 50'000'000;
  options.gated.check_period_ns = 200'000'000;
  options.gated.gate_timeout_ns = 500'000'000;
  options.gated.cpu_max_cv = options.gated.gpu_max_cv = options.gated.dram_max_cv = 0.0;
  const Result<OpSizeSweep> sweep = sweep_op_sizes(options);
  ASSERT_TRUE(sweep.ok()) << sweep.error().message();
  EXPECT_TRUE(sweep->points.empty());
  ASSERT_EQ(sweep->missing.size(), 2u);
  for (const std::string& m : sweep->missing)
    EXPECT_NE(m.find("not measured: the stability gate gave up"), std::string::npos) << m;
  EXPECT_FALSE(sweep->net_energy_vs_input_r.has_value());
}

TEST(OpSizeSweep, AnUnknownOpIsAnError) {
  OpSizeSweepOptions options = simulated_matmul({16});
  options.op = "no-such-op";
  EXPECT_FALSE(sweep_op_sizes(options).ok());
}

}  // namespace
}  // namespace jouleprof::torch_adapter
