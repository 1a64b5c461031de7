// A workload simulator with ground truth: transformer-like training steps on one GPU stream, with
// a known power per op class, and the counters a real run would give (a 1 ms RAPL-like counter, a
// 100 ms NVML-like counter, and a 1 s-averaged power reading every 100 ms). Seeded: the same
// options give the same workload, counters and truth.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "jouleprof/series.hpp"
#include "jouleprof/timeline.hpp"

namespace jouleprof::attribution {

struct OpClassSpec {
  std::string name;
  double power_w = 0.0;            // device power while the op runs
  double duration_us = 0.0;        // at batch 32, sequence 128
  double batch_exponent = 1.0;     // duration ∝ (batch / 32)^batch_exponent
  double sequence_exponent = 1.0;  // duration ∝ (sequence / 128)^sequence_exponent
  Pass pass = Pass::kForward;
  bool per_layer = true;  // once per layer, else once per step
  std::string scope;      // name prefix for per-step ops ("embeddings", "head", "optimizer")
};

// The ~50 op classes of a BERT-like training step. Powers spread as measured on an H200
// (METHODS.md §1: GEMMs 585–680 W, softmax ~595, GELU ~620, dropout ~505, batched matmul ~480,
// layer norm ~220, idle ~120 W).
std::vector<OpClassSpec> transformer_op_classes();

enum class WorkloadShape {
  kSteadyStep,   // the same step (batch 32, sequence 128, 4 layers) repeated
  kChangingMix,  // phases with different batch sizes, sequence lengths, depths and passes
};

struct SimulatorOptions {
  std::uint64_t seed = 1;
  WorkloadShape shape = WorkloadShape::kSteadyStep;
  TimeNs run_ns = 40 * kNsPerS;  // steps are added until the run is this long
  double idle_power_w = 120.0;
  double power_jitter = 0.02;         // per-op relative power noise (1 σ)
  TimeNs mean_launch_gap_ns = 4'000;  // idle gap between ops (exponential)
  TimeNs step_gap_ns = 300'000;       // idle gap between steps (data loading)
  double duration_scale = 1.0;        // every op's duration × this (longer ops, same mix)
};

struct SimulatedWorkload {
  std::vector<OpClassSpec> classes;
  double idle_power_w = 0.0;
  Timeline timeline;                        // one track "stream 7" on device "gpu0"
  std::vector<std::int32_t> class_of_span;  // index into classes; -1 for step spans
  std::vector<double> true_span_energy_j;   // self energy (steps: their idle gaps)
  TimeNs begin_ns = 0;
  TimeNs end_ns = 0;

  double true_energy_between_j(TimeNs a, TimeNs b) const;
  double true_energy_at_j(TimeNs t) const;  // cumulative from begin_ns

  // The piecewise-constant true power: power_w_[i] holds on [change_ns_[i], change_ns_[i+1]).
  std::vector<TimeNs> change_ns;
  std::vector<double> power_w;
  std::vector<double> energy_at_change_j;
};

SimulatedWorkload simulate_workload(const SimulatorOptions& options);

// Counter (a): cumulative energy updated every `period_ns` (RAPL: 1 ms), quantised to the RAPL
// energy unit (61 µJ), read `read_delay` after each update with a random delay up to
// max_read_delay_ns (the timing noise of a poller).
Series simulate_rapl_counter(const SimulatedWorkload& w, std::uint64_t seed,
                             TimeNs period_ns = kNsPerMs, TimeNs max_read_delay_ns = 20'000);

// Counter (b): NVML-like total-energy counter, updated every period ± jitter (100 ± 3 ms),
// quantised to 1 mJ, seen by a poller up to max_read_delay_ns after each update.
Series simulate_nvml_counter(const SimulatedWorkload& w, std::uint64_t seed,
                             TimeNs period_ns = 100 * kNsPerMs, TimeNs jitter_ns = 3 * kNsPerMs,
                             TimeNs max_read_delay_ns = 1 * kNsPerMs);

// Counter (c): power averaged over the preceding `average_ns` (1 s), sampled every period (100 ms).
Series simulate_averaged_power(const SimulatedWorkload& w, TimeNs period_ns = 100 * kNsPerMs,
                               TimeNs average_ns = kNsPerS);

}  // namespace jouleprof::attribution
