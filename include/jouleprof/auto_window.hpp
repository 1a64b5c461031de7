// Choosing the measurement window and the cooldown between trials for a callable (`measure
// --auto-window`), the way Zeus profiles: run the call in a loop for a window, several trials
// apart by a cooldown, and lengthen the window (against counter quantisation and noise) or the
// cooldown (against thermal drift: trials that get steadily costlier as the device heats) until
// the per-call energy's spread across trials falls below a threshold.
//
// It answers a different question from FECoM's gate (gated_measurement.hpp): the gate asks "is
// the machine idle and steady *before* I measure?" and measures against that idle baseline; the
// auto window asks "how long, and how far apart, must I measure this call for repeated figures to
// agree?" — it needs no idle baseline, and reports the total energy per call under load.
//
//   JP_TRY(AutoWindowResult w, find_stable_window(*monitor, call, AutoWindowOptions{}));
//   // w.window_ns, w.cooldown_ns: the settings; w.energy_j_per_call: their trials' mean
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "jouleprof/gated_measurement.hpp"
#include "jouleprof/monitor.hpp"
#include "jouleprof/progress.hpp"

namespace jouleprof {

struct AutoWindowOptions {
  std::size_t trials = 3;               // per setting
  double max_cv = 0.02;                 // spread of the per-call energy across trials
  TimeNs first_window_ns = 0;           // 0: 10 updates of the slowest counter
  TimeNs max_window_ns = 60 * kNsPerS;  // the sweep gives up beyond
  TimeNs first_cooldown_ns = kNsPerS;   // the first cooldown tried once drift is seen
  TimeNs max_cooldown_ns = 60 * kNsPerS;
  std::size_t warmup_runs = 1;
};

// One setting tried: its trials' per-call energy (top-level channels summed) and their spread.
struct AutoWindowSetting {
  TimeNs window_ns = 0;
  TimeNs cooldown_ns = 0;
  std::vector<double> energy_j_per_call;  // one per trial
  double mean_j = 0.0;
  double cv = 0.0;
  bool drifting = false;  // every trial costlier (or cheaper) than the one before
};

struct AutoWindowResult {
  bool stable = false;  // a setting met max_cv
  TimeNs window_ns = 0;
  TimeNs cooldown_ns = 0;
  double energy_j_per_call = 0.0;  // the chosen setting's mean
  double cv = 0.0;
  std::vector<AutoWindowSetting> sweep;  // every setting tried, in order
  std::string provenance;                // of the channels summed
  std::string missing;                   // why no setting was stable, or what a stop cut short
  Profile profile;                       // every sample of the sweep
};

// What to try after a setting: accept it, a longer window, a longer cooldown, or give up.
enum class AutoWindowNext { kAccept, kLongerWindow, kLongerCooldown, kGiveUp };
// Spread within max_cv: accept. Drift (monotonic trials) with a spread too wide: a longer
// cooldown (first_cooldown, then doubled) while below max_cooldown; otherwise a doubled window
// while below max_window; else give up.
AutoWindowNext next_auto_window_step(const AutoWindowSetting& tried,
                                     const AutoWindowOptions& options);
// Fills mean_j, cv (sample stdev ÷ mean) and drifting from energy_j_per_call.
void summarise_trials(AutoWindowSetting& setting);

// Starts the monitor, sweeps and stops it. Each setting is an item of `progress`, each trial a
// step; a stop asked through it ends the sweep with the settings tried so far. Errors when the
// call fails during warm-up or no top-level energy channel is measured.
Result<AutoWindowResult> find_stable_window(Monitor& monitor, const MeasuredCall& call,
                                            const AutoWindowOptions& options,
                                            ProgressReporter* progress = nullptr);

}  // namespace jouleprof
