// Command-line options shared by the libtorch commands (profile, sweep, calibrate): which zoo
// model to build and how, and where energy comes from.
#pragma once

#include <CLI/CLI.hpp>
#include <memory>
#include <string>

#include "command_progress.hpp"
#include "gated_flags.hpp"
#include "jouleprof/torch.hpp"
#include "source_flags.hpp"

namespace jouleprof::cli {

struct TorchCommandOptions {
  torch_adapter::WorkloadOptions workload;
  std::string mode = "infer";
  SourceFlags source_flags;  // --source, --sysfs-root, --simulate, --tdp, --set
  int steps = 5;
  int warmup = 2;
  double idle_s = 1.0;
};

// Adds --mode --batch --seq --image --device --threads --seed --steps --warmup --idle and the
// source flags (not --model, whose meaning differs between commands).
void add_torch_run_options(CLI::App& command, TorchCommandOptions& options);

// Checks --mode and fills options.workload.mode; an error names the option and value.
Status resolve_mode(TorchCommandOptions& options);

// The calibration's options (calibrate, profile --calibrate): the classes taken and the gated
// protocol's settings, with the calibration's short defaults or, with --fecom-defaults, FECoM's.
struct CalibrationFlags {
  std::size_t max_classes = 24;
  double coverage_pct = 100.0;
  std::unique_ptr<GatedFlags> gate;
  ProgressFlags progress;
};

// Adds --max-classes --coverage, --quiet and the gated protocol's flags (gated_flags.hpp), the
// gate's interval as --gate-interval since --interval is the sampler's.
void add_calibration_options(CLI::App& command, CalibrationFlags& flags);

// The calibration options these flags ask for; an error names the flag and value.
Result<torch_adapter::CalibrationOptions> calibration_options(const CalibrationFlags& flags,
                                                              DeviceKind device);

// Calibrates the captured classes (torch_adapter::calibrate) with the estimate printed first and
// the progress on stderr. After SIGINT the classes measured are kept, the others listed as
// skipped, and `interrupted` is set.
Result<Calibration> run_calibration(const std::vector<torch_adapter::CapturedOp>& ops,
                                    const torch_adapter::OpTimes& times,
                                    const CalibrationFlags& flags,
                                    const torch_adapter::CalibrationOptions& options,
                                    const MonitorOptions& monitor, bool& interrupted);

// Prints the calibration: protocol, channels, idle, per class its power and net power ± stdev,
// time per call, share of op time, gate waits; the coverage; what was skipped.
void print_calibration(const Calibration& calibration, const std::string& path);

}  // namespace jouleprof::cli
