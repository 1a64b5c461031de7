#include "predict/kernel_bench.hpp"

#include <gtest/gtest.h>

#include <chrono>

#include "predict/kernel_space.hpp"
#include "test_support.hpp"

namespace jouleprof::predict {
namespace {

using jouleprof::testing::TempDir;

// A simulated constant 40 W machine and a gate short enough for a unit test.
KernelBenchOptions simulated_options() {
  KernelBenchOptions o;
  o.monitor.sources.selected = {"simulated"};
  o.monitor.sources.settings["simulate.watts"] = "40";
  o.gated.repetitions = 2;
  // 50 ms intervals: the simulated counter's 1 ms steps are 2 % of one, under the 3 % CV gate.
  o.gated.interval_ns = 50 * kNsPerMs;
  o.gated.last_n = 3;
  o.gated.check_period_ns = 20 * kNsPerMs;
  o.gated.gate_timeout_ns = 5 * kNsPerS;
  o.gated.tail_wait_ns = 20 * kNsPerMs;
  // Windows of at least 100 counter updates: one update is then 1 % of a window's energy.
  o.gated.min_counter_updates = 100;
  return o;
}

// A kernel double whose call spins for a time that grows with its channels.
MeasuredCall spinning_call(const KernelConfig& k) {
  const auto duration = std::chrono::microseconds(200 + 4 * k.cin);
  return [duration]() -> Status {
    const auto end = std::chrono::steady_clock::now() + duration;
    while (std::chrono::steady_clock::now() < end) {
    }
    return Status::Ok();
  };
}

TEST(KernelBench, MeasuresEachKernelAndLabelsItsProvenance) {
  KernelSpace space = default_kernel_spaces().at("relu");
  space.cin = {8, 64};
  auto kernels = sample_kernels(space, 3, 5);
  ASSERT_TRUE(kernels.ok());
  std::vector<KernelOutcome> outcomes;
  measure_kernels(
      *kernels, [](const KernelConfig& k) -> Result<MeasuredCall> { return spinning_call(k); },
      simulated_options(), [&](std::size_t, const KernelOutcome& o) { outcomes.push_back(o); });
  ASSERT_EQ(outcomes.size(), 3u);
  for (const KernelOutcome& o : outcomes) {
    ASSERT_TRUE(o.energy) << o.failure;
    const KernelEnergy& e = *o.energy;
    EXPECT_EQ(e.provenance, "simulated:simulated");
    EXPECT_EQ(e.repetitions, 2u);
    EXPECT_GE(e.call_ms, (200 + 4 * o.config.cin) * 1e-3);
    // Total energy per call of a constant 40 W: 40 W × time per call (mJ = W × ms).
    EXPECT_NEAR(e.energy_mj, 40.0 * e.call_ms, 0.05 * 40.0 * e.call_ms) << o.config.name;
  }
}

TEST(KernelBench, AFailingKernelIsReportedAndTheOthersGoOn) {
  KernelSpace space = default_kernel_spaces().at("relu");
  auto kernels = sample_kernels(space, 3, 5);
  ASSERT_TRUE(kernels.ok());
  const std::string broken = (*kernels)[1].name;
  std::vector<KernelOutcome> outcomes;
  measure_kernels(
      *kernels,
      [&](const KernelConfig& k) -> Result<MeasuredCall> {
        if (k.name == broken) return Error(ErrorCode::kUnsupported, "no such block");
        return spinning_call(k);
      },
      simulated_options(), [&](std::size_t, const KernelOutcome& o) { outcomes.push_back(o); });
  ASSERT_EQ(outcomes.size(), 3u);
  EXPECT_TRUE(outcomes[0].energy);
  EXPECT_FALSE(outcomes[1].energy);
  EXPECT_NE(outcomes[1].failure.find("no such block"), std::string::npos);
  EXPECT_TRUE(outcomes[2].energy);
}

TEST(KernelBench, NetEnergyOfAConstantMachineIsAboutZero) {
  KernelBenchOptions options = simulated_options();
  options.figure = KernelEnergyFigure::kNet;
  KernelSpace space = default_kernel_spaces().at("relu");
  space.cin = {200, 200};  // 1 ms per call
  auto kernels = sample_kernels(space, 1, 5);
  ASSERT_TRUE(kernels.ok());
  std::vector<KernelOutcome> outcomes;
  measure_kernels(
      *kernels, [](const KernelConfig& k) -> Result<MeasuredCall> { return spinning_call(k); },
      options, [&](std::size_t, const KernelOutcome& o) { outcomes.push_back(o); });
  ASSERT_EQ(outcomes.size(), 1u);
  // 40 W before and during the call: nothing above the baseline but the counter's 1 ms steps.
  // The total would be 40 W × 1 ms = 40 mJ; a net at or below zero is reported, not written.
  if (outcomes[0].energy) {
    EXPECT_LT(outcomes[0].energy->energy_mj, 0.05 * 40.0 * outcomes[0].energy->call_ms);
  } else {
    EXPECT_NE(outcomes[0].failure.find("not positive"), std::string::npos) << outcomes[0].failure;
  }
}

TEST(KernelBench, CsvRoundTripIntoTraining) {
  TempDir dir;
  KernelSpace space = default_kernel_spaces().at("conv-bn-relu");
  auto kernels = sample_kernels(space, 12, 9);
  ASSERT_TRUE(kernels.ok());
  std::string csv = "# jouleprof kernel-bench (test)\n" + kernel_csv_header() + "\n";
  std::vector<KernelSample> written;
  for (const KernelConfig& k : *kernels) {
    KernelEnergy e;
    e.energy_mj = 1e-6 * *kernel_flops(k) + 0.01;
    e.provenance = "estimated:cpu-estimate";
    written.push_back(kernel_sample(k, e));
    csv += kernel_csv_row(written.back()) + "\n";
  }
  const auto path = dir.write("kernels.csv", csv + "# missing conv-bn-relu_99: gate timed out\n");
  auto read = read_kernel_files(std::vector<std::filesystem::path>{path});
  ASSERT_TRUE(read.ok()) << read.error().message();
  ASSERT_EQ(read->size(), written.size());
  for (std::size_t i = 0; i < written.size(); ++i) {
    const KernelSample& a = written[i];
    const KernelSample& b = (*read)[i];
    EXPECT_EQ(b.config.name, a.config.name);
    EXPECT_EQ(b.config.op, a.config.op);
    EXPECT_EQ(b.config.hw, a.config.hw);
    EXPECT_EQ(b.config.cin, a.config.cin);
    EXPECT_EQ(b.config.cout, a.config.cout);
    EXPECT_EQ(b.config.kernel_size, a.config.kernel_size);
    EXPECT_EQ(b.config.stride, a.config.stride);
    EXPECT_DOUBLE_EQ(b.energy_mj, a.energy_mj);
    EXPECT_EQ(b.provenance, "estimated:cpu-estimate");
  }
}

TEST(KernelBench, TheFastDefaultsAreShorterThanFecoms) {
  const GatedOptions fast = kernel_gated_defaults();
  const GatedOptions fecom;
  EXPECT_LT(fast.interval_ns, fecom.interval_ns);
  EXPECT_LT(fast.gate_timeout_ns, fecom.gate_timeout_ns);
  EXPECT_LT(fast.tail_wait_ns, fecom.tail_wait_ns);
  EXPECT_EQ(fast.cpu_max_cv, fecom.cpu_max_cv);  // the gate is as strict, only shorter
}

}  // namespace
}  // namespace jouleprof::predict
