// The gated protocol's flags, one set for every command that measures through it (measure,
// kernel-bench, detect-rules, calibrate, profile --calibrate): --repeat, --warmup, the interval,
// --last-n, the CV thresholds, --tolerance, the temperature caps, --check-period, --gate-timeout,
// --tail-wait, --tail-window, --min-updates and, where a command's defaults are not FECoM's,
// --fecom-defaults.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "jouleprof/gated_measurement.hpp"

namespace jouleprof::cli {

struct GatedFlagNames {
  // Commands that also sample and run steps (profile, calibrate) keep --interval for the sampler
  // and --warmup for their warm-up steps.
  std::string interval = "--interval";
  std::string warmup = "--warmup";
  // false where the command's defaults already are FECoM's (measure).
  bool offer_fecom_defaults = true;
};

class GatedFlags {
 public:
  // `defaults` are the command's; --fecom-defaults replaces them with FECoM's published ones
  // (GatedOptions{}), and any flag given explicitly overrides either.
  GatedFlags(CLI::App& command, const GatedOptions& defaults, const GatedFlagNames& names = {});
  GatedOptions options() const;

 private:
  GatedOptions defaults_;
  GatedOptions given_;
  double interval_ms_ = 0, check_period_s_ = 0, gate_timeout_s_ = 0, tail_wait_s_ = 0;
  bool fecom_defaults_ = false;
  CLI::Option *repeat_, *warmup_, *interval_, *last_n_, *cpu_cv_, *dram_cv_, *gpu_cv_, *tolerance_,
      *cpu_temp_, *gpu_temp_, *check_period_, *gate_timeout_, *tail_wait_, *tail_window_,
      *min_updates_;
};

}  // namespace jouleprof::cli
