// STEP (Stable Training Epoch Projection, del Rey et al.): the energy of a whole training run
// projected from its first epochs. With per-epoch energies E_e (epochs numbered from 1, as
// jouleprof prints them: E_e is epoch_energies_j[e − 1]), N epochs in total, the s epochs summed as
// measured and the window w after them:
//
//   E = Σ_{e=1}^{s} E_e + (N − s)/w · Σ_{e=s+1}^{s+w} E_e
//
// Live use (during `jouleprof run --epochs N`): after each epoch, pass the energies so far.
//
//   jouleprof::StepOptions options;                        // s = 10, w = 5
//   auto live = jouleprof::project_live(energies_so_far_j, total_epochs, options);
//   if (live && live->ready) print(live->projection.total_j, live->remaining_j);
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "jouleprof/result.hpp"

namespace jouleprof {

struct StepOptions {
  int stable_epoch = 10;  // s: the first s epochs are summed as measured (epoch 1 costs 5–10×)
  int window = 5;         // w: epochs whose mean is extrapolated
  // Online stability detector (an addition to the paper, which chose s offline): s becomes the
  // smallest s ≥ w + 1 such that the windows E_{s−w+1} … E_s and E_{s+1} … E_{s+w} each have a
  // coefficient of variation (sample stdev / mean) at most `stability_cv` and their means differ
  // by at most `stability_cv` (relative): the level has settled, not only the noise. Decided
  // online once epoch s + w is measured. When no such s is measured, s stays fixed.
  bool online_stability = false;
  double stability_cv = 0.05;
};

struct StepProjection {
  double total_j = 0.0;     // projected energy of all N epochs
  double band_low_j = 0.0;  // 95 % band from the window's spread (see docs/training.md)
  double band_high_j = 0.0;
  double head_j = 0.0;         // Σ_{e<s} E_e, measured
  double window_mean_j = 0.0;  // mean epoch energy in the window
  int stable_epoch = 0;        // s actually used
  int window = 0;              // w actually used
  int total_epochs = 0;
  bool fallback = false;  // s + w did not fit the epochs known: a reduced rule was used
  std::string method;     // which rule produced total_j, in words
  std::vector<std::string> warnings;
};

// Projects N epochs from the first energies (only epochs up to s + w are used; later ones are
// ignored). With fewer known epochs than s + w: the window shrinks to the last known epochs
// after epoch 1 (w' = min(w, k − 1), s' = k − w'); with one epoch, E_1 × N; when N ≤ k the
// known epochs are the whole run. Each fallback is stated in `warnings`.
Result<StepProjection> step_project(std::span<const double> epoch_energies_j, int total_epochs,
                                    const StepOptions& options = {});

// The power-based variant: mean power over the window epochs × the total training duration.
// `epoch_durations_s` align with the energies; `total_duration_s` is the (expected) duration
// of all N epochs.
Result<StepProjection> step_power_project(std::span<const double> epoch_energies_j,
                                          std::span<const double> epoch_durations_s,
                                          int total_epochs, double total_duration_s,
                                          const StepOptions& options = {});

struct LiveProjection {
  bool ready = false;  // at least s + w epochs are known: the published rule applies
  double energy_so_far_j = 0.0;
  double remaining_j = 0.0;  // projection.total_j − energy_so_far_j (never below 0)
  StepProjection projection;
};

// For a running training job: the projection and the energy still to come.
Result<LiveProjection> project_live(std::span<const double> epoch_energies_so_far_j,
                                    int total_epochs, const StepOptions& options = {});

}  // namespace jouleprof
