// Command-line options shared by the libtorch commands (profile, sweep, calibrate): which zoo
// model to build and how, and where energy comes from.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

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

}  // namespace jouleprof::cli
