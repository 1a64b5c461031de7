// The gated-protocol flags of the kernel commands (kernel-bench, detect-rules): --repeat,
// --warmup, --interval, --last-n, the CV thresholds, --tolerance, --check-period, --gate-timeout,
// --tail-wait, --min-updates and --fecom-defaults, over a command's own defaults.
#pragma once

#include <CLI/CLI.hpp>

#include "jouleprof/gated_measurement.hpp"

namespace jouleprof::cli {

class GatedFlags {
 public:
  // `defaults` are the command's; --fecom-defaults replaces them with FECoM's published ones
  // (GatedOptions{}), and any flag given explicitly overrides either.
  GatedFlags(CLI::App& command, const GatedOptions& defaults);
  GatedOptions options() const;

 private:
  GatedOptions defaults_;
  GatedOptions given_;
  double interval_ms_ = 0, check_period_s_ = 0, gate_timeout_s_ = 0, tail_wait_s_ = 0;
  bool fecom_defaults_ = false;
  CLI::Option *repeat_, *warmup_, *interval_, *last_n_, *cpu_cv_, *dram_cv_, *gpu_cv_, *tolerance_,
      *check_period_, *gate_timeout_, *tail_wait_, *min_updates_;
};

}  // namespace jouleprof::cli
