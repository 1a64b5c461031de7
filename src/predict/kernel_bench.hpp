// Measuring kernels with the gated protocol (`jouleprof kernel-bench`, `jouleprof detect-rules`):
// one kernel = one callable (built by the libtorch adapter, src/torch/kernel_calls.hpp), measured
// by measure_gated() on a fresh Monitor, reduced to one energy and one time per call.
//
// The energy of a kernel is DeepEn2023's: the energy of the whole device while the kernel runs,
// per call (average power × latency) — the sum over the top-level energy channels of each
// channel's total energy per call (KernelEnergyFigure::kTotal), or of the energy above the idle
// baseline the gate measured (kNet, FECoM's net energy). It carries the provenance of the channels
// it came from; a measurement on the CPU estimate is an estimate.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "jouleprof/gated_measurement.hpp"
#include "jouleprof/monitor.hpp"
#include "predict/kernel_dataset.hpp"

namespace jouleprof::predict {

enum class KernelEnergyFigure { kTotal, kNet };
std::string_view to_string(KernelEnergyFigure f);
std::optional<KernelEnergyFigure> kernel_energy_figure_from_string(std::string_view s);

// The gated protocol with settings for kernels of micro- to milliseconds, measured by the hundred:
// the kernel preset (gated_preset(GatedPreset::kKernel)): 3 repetitions, 100 ms intervals, a gate
// over the last 5 of them checked every 100 ms and given up after 10 s, 200 ms of tail watch,
// FECoM's CV thresholds. One kernel then takes a few seconds.
GatedOptions kernel_gated_defaults();

struct KernelBenchOptions {
  MonitorOptions monitor;
  GatedOptions gated = kernel_gated_defaults();
  KernelEnergyFigure figure = KernelEnergyFigure::kTotal;
};

// One kernel's figures per call, over the completed repetitions.
struct KernelEnergy {
  double energy_mj = 0.0;  // mean over repetitions of the top-level channels' sum
  double energy_stdev_mj = 0.0;
  EnergyBand energy_band;  // the mean's 95 % interval in joules (summed_band)
  double call_ms = 0.0;    // mean time per call
  double call_stdev_ms = 0.0;
  std::size_t repetitions = 0;
  std::uint64_t calls_per_window = 0;  // of the first repetition
  std::string provenance;             // "<provenance>:<source>[+<source>…]", as in the kernel CSV
  std::vector<std::string> channels;  // the channels summed
  bool incomplete = false;
  std::string missing;  // what the protocol could not measure, when incomplete
};

// Reduces a gated result; fails when no repetition completed or no top-level energy channel was
// measured.
Result<KernelEnergy> kernel_energy(const GatedResult& result, KernelEnergyFigure figure);

// Opens a Monitor with options.monitor and measures the call. A stop asked through `progress`
// before the measurement ended is an error (kInterrupted): a kernel measured in part is not kept.
Result<KernelEnergy> measure_kernel_call(const MeasuredCall& call,
                                         const KernelBenchOptions& options,
                                         ProgressReporter* progress = nullptr);

// Builds the call that runs one kernel (the libtorch adapter's make_kernel_call, or a test double).
using KernelCallFactory = std::function<Result<MeasuredCall>(const KernelConfig&)>;

struct KernelOutcome {
  KernelConfig config;
  std::optional<KernelEnergy> energy;  // set when measured
  std::string failure;                 // why not, otherwise
};

// Measures each kernel in turn and hands each outcome to `on_outcome` as soon as it is known (the
// CLI writes the CSV row and prints progress there, so an interrupted run keeps what it measured).
// A kernel that fails to build or measure, or whose energy is not positive (a net energy lost in
// the baseline's noise), is reported as a failure and the others go on. Each kernel is an item of
// `progress`; after a stop asked through it, the kernel under way and every later one are reported
// as failures that say so.
void measure_kernels(const std::vector<KernelConfig>& kernels, const KernelCallFactory& make_call,
                     const KernelBenchOptions& options,
                     const std::function<void(std::size_t index, const KernelOutcome&)>& on_outcome,
                     ProgressReporter* progress = nullptr);

// The sample a measured kernel contributes to a kernel CSV.
KernelSample kernel_sample(const KernelConfig& config, const KernelEnergy& energy);

}  // namespace jouleprof::predict
