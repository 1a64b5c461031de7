// FECoM's published per-call records (`method-level/<project>/experiment-<k>.json`, format in
// METHODS.md §2) and their re-analysis with jouleprof's implementation of the published rules.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "jouleprof/call_energy.hpp"
#include "jouleprof/interval_trace.hpp"
#include "jouleprof/profile.hpp"
#include "jouleprof/result.hpp"

namespace jouleprof {

enum class FecomDevice : std::uint8_t { kCpu = 0, kRam = 1, kGpu = 2 };
inline constexpr std::array<FecomDevice, 3> kFecomDevices{FecomDevice::kCpu, FecomDevice::kRam,
                                                          FecomDevice::kGpu};
std::string_view to_string(FecomDevice d);

// One API call of one experiment. Times are on each tool's own axis (ns since perf or
// nvidia-smi started), as recorded.
struct FecomCall {
  std::string api;
  std::size_t position = 0;             // index of the call in its experiment's list
  std::array<IntervalTrace, 3> traces;  // by FecomDevice
  std::vector<double> gpu_temperature_c;
  TimeNs start_perf_ns = 0;
  TimeNs end_perf_ns = 0;
  TimeNs start_nvidia_ns = 0;
  TimeNs end_nvidia_ns = 0;
  TimeNs execution_ns = 0;  // end_time_execution − start_time_execution
  std::optional<double> args_size;
  std::optional<double> object_size;
  TimeNs wait_per_stable_check_ns = 20 * kNsPerS;  // from the record's settings
  TimeNs wait_after_run_ns = 30 * kNsPerS;
  // Samples left out because no device of their kind can use that energy in that interval.
  std::vector<std::string> warnings;
};

Result<std::vector<FecomCall>> read_fecom_experiment(const std::string& path);

// A call analysed with the record's own settings: window, baseline over the stable-check wait,
// tail up to the post-run wait, GPU tail margin 2 W.
Result<CallEnergy> analyse_fecom_call(const FecomCall& call, FecomDevice device);

struct FecomDeviceSummary {
  RepetitionStats total_j;
  RepetitionStats net_j;
  RepetitionStats tail_j;
  RepetitionStats net_plus_tail_j;
  std::uint32_t skipped = 0;  // experiments in which the call was shorter than one sample
};

struct FecomCallSummary {
  std::string api;
  std::size_t position = 0;
  std::uint32_t experiments = 0;
  RepetitionStats execution_s;
  std::array<FecomDeviceSummary, 3> devices;  // by FecomDevice
  std::optional<double> args_size;
};

// Reads every experiment-<k>.json in `dir` and summarises each call over the experiments. Only
// calls present (same position and API) in every experiment are compared; others are listed in
// `warnings`.
struct FecomAnalysis {
  std::vector<FecomCallSummary> calls;
  std::uint32_t experiments = 0;
  std::vector<std::string> warnings;
};
Result<FecomAnalysis> analyse_fecom_directory(const std::string& dir);

}  // namespace jouleprof
