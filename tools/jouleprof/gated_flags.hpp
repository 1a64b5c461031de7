// The gated protocol's flags, one set for every command that measures through it (measure,
// kernel-bench, detect-rules, calibrate, profile --calibrate): --repeat, --warmup, the interval,
// --last-n, the CV thresholds, --tolerance, the temperature caps, --check-period, --gate-timeout,
// --tail-wait, --tail-window, --min-updates, and the presets: --preset NAME, --quick (the quick
// preset) and --fecom-defaults (FECoM's published settings). Flags given explicitly override the
// preset; the options' `preset` then says which were changed.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <string_view>

#include "jouleprof/gated_measurement.hpp"

namespace jouleprof::cli {

struct GatedFlagNames {
  // Commands that also sample and run steps (profile, calibrate) keep --interval for the sampler
  // and --warmup for their warm-up steps.
  std::string interval = "--interval";
  std::string warmup = "--warmup";
};

class GatedFlags {
 public:
  // `defaults` are the command's (one of the presets, named by defaults.preset); a preset flag
  // replaces them, and any flag given explicitly overrides either.
  GatedFlags(CLI::App& command, const GatedOptions& defaults, const GatedFlagNames& names = {});
  GatedOptions options() const;

 private:
  GatedOptions defaults_;
  GatedOptions given_;
  double interval_ms_ = 0, check_period_s_ = 0, gate_timeout_s_ = 0, tail_wait_s_ = 0;
  std::string preset_;
  bool quick_ = false;
  bool fecom_defaults_ = false;
  CLI::Option *preset_option_, *quick_option_, *fecom_option_;
  CLI::Option *repeat_, *warmup_, *interval_, *last_n_, *cpu_cv_, *dram_cv_, *gpu_cv_, *tolerance_,
      *cpu_temp_, *gpu_temp_, *check_period_, *gate_timeout_, *tail_wait_, *tail_window_,
      *min_updates_;
};

// The slowest energy counter's nominal update period of the sources these options open (for the
// estimate before the measurement starts); `fallback` when they cannot be opened.
TimeNs expected_update_period_ns(const MonitorOptions& monitor, TimeNs fallback);

// What a command will do and about how long it takes, printed before it starts:
// "measure: 2 sizes × 10 repetitions × ≥ 53 s (gate 20 s + calls ≥ 5.0 s + call + tail 30 s)
//  ≈ 17:45 (preset fecom); --quick takes ≈ 13 s". `items` = 1 and an empty `unit` for one
// measurement; `extra_ns` is what the command adds outside the measurements.
std::string estimate_text(std::string_view command, std::size_t items, std::string_view unit,
                          const GatedEstimate& estimate, const GatedOptions& options,
                          TimeNs update_period_ns, TimeNs extra_ns = 0);
// "measure: took 12.3 s (estimated ≈ 10.0 s)"
std::string took_text(std::string_view command, TimeNs took_ns, TimeNs estimate_ns);

}  // namespace jouleprof::cli
