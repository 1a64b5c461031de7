// Gated measurement of one callable (FECoM's protocol, METHODS.md §2, made live):
//
//   warm-up runs → stability gate (every channel's CV over the last N intervals below its
//   threshold, temperatures below their caps; re-checked every check period, given up after the
//   timeout with a report of what was unstable) → the call, repeated in a loop until the window
//   spans at least K counter updates → tail wait → per channel: total, idle baseline (the window
//   the gate accepted), net, tail, net + tail, per call → repeated R times, with statistics.
//
//   JP_TRY(auto monitor, Monitor::open(monitor_options));
//   GatedOptions options;                                   // FECoM's published defaults
//   JP_TRY(GatedResult r, measure_gated(*monitor, [] { work(); return Status::Ok(); }, options));
//
// A repetition whose gate times out ends the measurement: the repetitions measured so far are
// kept and `incomplete` says what is missing. So does a stop asked through the progress reporter
// (progress.hpp), which also hears of every repetition, phase and gate check.
//
// Presets name whole settings (gated_preset); estimate_gated says before a measurement roughly
// how long it will take with them.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "jouleprof/call_energy.hpp"
#include "jouleprof/energy_band.hpp"
#include "jouleprof/monitor.hpp"
#include "jouleprof/profile.hpp"
#include "jouleprof/progress.hpp"
#include "jouleprof/stability.hpp"

namespace jouleprof {

struct GatedOptions {
  std::size_t warmup_runs = 1;
  std::size_t repetitions = 10;
  TimeNs interval_ns = 500 * kNsPerMs;  // analysis interval of the gate and the tail (FECoM: 0.5 s)
  std::size_t last_n = 20;              // intervals the gate looks at
  double cpu_max_cv = kFecomCpuMaxCv;   // package, core, psys, estimates
  double dram_max_cv = kFecomDramMaxCv;
  double gpu_max_cv = kFecomGpuMaxCv;
  double tolerance = 0.0;  // relative loosening of every CV threshold
  double cpu_max_temperature_c = kFecomCpuMaxTemperatureC;
  double gpu_max_temperature_c = kFecomGpuMaxTemperatureC;
  TimeNs check_period_ns = 20 * kNsPerS;  // wait between gate checks
  TimeNs gate_timeout_ns = 120 * kNsPerS;
  TimeNs tail_wait_ns = 30 * kNsPerS;
  std::size_t tail_moving_average = 5;
  double gpu_tail_margin_w = kFecomGpuTailMarginW;
  std::size_t min_counter_updates = 10;  // K: the call repeats until its window spans K updates
  // Which named settings these are ("fecom", "quick" …, with what was changed after), recorded in
  // the profile's options as gated.preset.
  std::string preset = "fecom";
};

// Named settings, each a documented trade of time against resolution (docs/measure.md):
//   fecom     FECoM's published protocol (GatedOptions{}): 500 ms intervals, a gate over 20 of
//             them checked every 20 s, a 30 s tail, 10 repetitions; ≥ 50 s per repetition.
//   standard  a first try that ends in about a minute for two sizes: 200 ms intervals, a 2 s gate
//             window checked every 2 s, a 3 s tail, 5 repetitions of ≥ 20 updates (~5 %).
//   quick     the calibration's: 100 ms intervals, a 1 s gate window checked every second, a 1 s
//             tail, 3 repetitions of ≥ 50 counter updates (~2 % resolution each).
//   kernel    kernel-bench's, for kernels measured by the hundred: 100 ms intervals, a 0.5 s gate
//             window checked every 100 ms, a 0.2 s tail, 3 repetitions of ≥ 10 updates.
// Every preset keeps FECoM's CV thresholds and temperature caps.
enum class GatedPreset { kFecom, kStandard, kQuick, kKernel };
GatedOptions gated_preset(GatedPreset preset);
std::string_view to_string(GatedPreset preset);
std::optional<GatedPreset> gated_preset_from_string(std::string_view name);

// How long a measurement takes, worked out before it starts from its settings, the slowest energy
// counter's update period and (when known) the time of one call. Gates are assumed to pass at
// their first possible check: the first once its window has filled, later ones once the window
// no longer holds the previous repetition's calls. A gate that waits longer makes the real
// duration longer; the estimate is what the settings cost at least.
struct GatedEstimate {
  std::size_t repetitions = 0;
  TimeNs warmup_ns = 0;
  TimeNs first_gate_ns = 0;
  TimeNs gate_ns = 0;  // each later repetition's
  TimeNs window_ns = 0;
  TimeNs tail_ns = 0;
  TimeNs total_ns = 0;
  bool call_known = false;

  TimeNs repetition_ns() const { return gate_ns + window_ns + tail_ns; }
  // "10 repetitions × ≥ 50 s (gate 20 s + calls ≥ 0.5 s + tail 30 s)"
  std::string describe() const;
};
GatedEstimate estimate_gated(const GatedOptions& options, TimeNs update_period_ns,
                             TimeNs call_ns = 0);

// The slowest nominal update period of the energy channels (what a window must span K of), for
// estimates before sampling starts; `fallback` when no channel declares one.
TimeNs slowest_nominal_period_ns(const std::vector<Channel>& channels, TimeNs fallback);

struct ChannelGate {
  std::string channel_id;
  double value = 0.0;      // CV, or mean temperature in °C
  double threshold = 0.0;  // the CV threshold, or the temperature cap
  bool ok = false;
  bool temperature = false;
};

struct GateLog {
  bool passed = false;
  TimeNs waited_ns = 0;
  std::uint32_t checks = 0;
  std::vector<ChannelGate> channels;  // at the last check
  std::string failure;                // which channel was unstable or hot, when it did not pass
};

// One channel's figures for one repetition, per call (the window's figures ÷ calls).
struct ChannelCall {
  std::string channel_id;
  std::string domain;
  Provenance provenance = Provenance::kMeasured;
  std::string provenance_detail;
  double total_j = 0.0;
  double baseline_power_w = 0.0;
  double net_j = 0.0;
  double tail_j = 0.0;  // the whole tail after the loop, ÷ calls
  double net_plus_tail_j = 0.0;
  TimeNs tail_duration_ns = 0;
  double mean_power_w = 0.0;  // over the window, per interval
  double median_power_w = 0.0;
  double stdev_power_w = 0.0;
  // The window's own uncertainty terms (quantisation, edges, read delay, gaps), per call: the
  // interval of a measurement of one repetition.
  std::vector<UncertaintyPart> window_terms;
};

struct GatedRepetition {
  GateLog gate;
  std::uint64_t calls = 0;  // calls in the window (amplification)
  TimeNs start_ns = 0;      // the window's first instant (monotonic); the baseline precedes it
  TimeNs window_ns = 0;
  std::vector<ChannelCall> channels;
};

// Per call, over the completed repetitions. Each band is the mean's 95 % interval
// (repeated_band: the repetitions' Student-t interval with the source's gain or model error).
struct GatedChannelSummary {
  std::string channel_id;
  RepetitionStats total_j;
  RepetitionStats net_j;
  RepetitionStats tail_j;
  RepetitionStats net_plus_tail_j;
  EnergyBand total_band;
  EnergyBand net_band;
  EnergyBand net_plus_tail_band;
};

struct GatedResult {
  std::vector<GatedRepetition> repetitions;
  std::vector<GatedChannelSummary> summary;  // over the completed repetitions, per call
  TimeNs update_period_ns = 0;  // the slowest energy counter's update period, as observed
  TimeNs min_window_ns = 0;     // K × that period: each window lasts at least this long
  TimeNs single_call_ns = 0;    // duration of one call, from the last warm-up run
  bool incomplete = false;
  std::string missing;  // what was not measured and why
  std::vector<std::string> warnings;
  Profile profile;  // every sample of the whole measurement, for reports
};

// Which per-call figure of a gated measurement.
enum class GatedFigure : std::uint8_t { kTotal, kNet, kNetPlusTail };
double figure_of(const ChannelCall& call, GatedFigure figure);

// The 95 % interval of the per-call mean of a figure summed over some of the channels (by index
// into each repetition's `channels`): the sum's Student-t interval with each channel's gain or
// model error, independent from device to device.
EnergyBand summed_band(const GatedResult& result, std::span<const std::size_t> channels,
                       GatedFigure figure);

using MeasuredCall = std::function<Status()>;

// Starts the monitor, runs the protocol and stops it. Errors only when the call itself fails
// before anything was measured; later failures, and a stop asked through `progress`, end the
// measurement with `incomplete` set. `progress` hears of each repetition as a step.
Result<GatedResult> measure_gated(Monitor& monitor, const MeasuredCall& call,
                                  const GatedOptions& options,
                                  ProgressReporter* progress = nullptr);

}  // namespace jouleprof
