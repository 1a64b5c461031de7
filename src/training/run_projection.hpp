// STEP and the baselines for one logged training run: what `jouleprof project` prints. The
// trace gives the energy (any format the power-log readers know, or jouleprof's own profile.json
// and samples.csv: their top-level channels), the epochs come from a CSV of end times, the
// profile's epoch marks, or an equal split of the training window, and the GPU's specifications
// feed the baselines.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "jouleprof/result.hpp"
#include "jouleprof/step.hpp"
#include "sources/backends.hpp"
#include "training/epoch_log.hpp"
#include "training/gpu_specs.hpp"

namespace jouleprof {

struct ProjectRequest {
  std::string trace_path;
  PowerLogFormat trace_format = PowerLogFormat::kAuto;
  int epochs = 0;                         // N, the whole run
  std::optional<double> duration_s;       // training window from the first sample; else the trace
  std::optional<std::string> epochs_csv;  // epoch,end_s; else an equal split
  std::optional<std::string> memory_log;  // process log for the RAM power model
  double ram_watts_per_gb = 0.375;
  std::optional<std::string> gpu_name;   // else the trace's device name
  std::optional<double> forward_gflops;  // per sample, for FLOPs-linear
  std::optional<double> samples_per_epoch;
  std::int64_t utc_offset_s = 0;
  StepOptions step;
};

struct MethodEstimate {
  std::string method;
  double energy_j = 0.0;
  std::optional<double> band_low_j, band_high_j;
  std::string detail;
};

struct RunProjectionReport {
  std::string trace_path;
  EpochLog epochs;
  std::vector<double> epoch_energies_j;
  double measured_j = 0.0;  // integral of the trace over the training window
  std::vector<std::string> channels;
  std::vector<MethodEstimate> estimates;  // STEP first
  std::vector<std::string> warnings;
};

Result<RunProjectionReport> project_logged_run(const ProjectRequest& request,
                                               const GpuSpecTable& specs);

}  // namespace jouleprof
