// The energy per repetition of windows read from the channels at their ends (a run's epochs, as
// `measure` reads its repetitions) and the 95 % interval of its mean, by measure's rule
// (repeated_band, docs/uncertainty.md "Repetition"): the repetitions' Student-t interval with the
// terms that repeat alike.
#pragma once

#include <span>
#include <vector>

#include "jouleprof/profile.hpp"
#include "jouleprof/series.hpp"
#include "sampling/counter_uncertainty.hpp"

namespace jouleprof {

// `energy_j[c][r]` is the energy of top-level channel `series[c]` in repetition r, whose window is
// `windows[r]`. The figure is the mean over the repetitions of their sums over the channels; the
// terms that repeat alike are each channel's gain (or estimate model) on its mean and its windows'
// read delay and averaging, averaged; a single repetition's interval is its window's terms, as it
// shows no spread. Channels are different devices: their terms add in squares. Nullopt without a
// repetition.
std::optional<RepeatedEnergy> repeated_energy(std::span<const Series* const> series,
                                              std::span<const RepetitionWindow> windows,
                                              const std::vector<std::vector<double>>& energy_j);

}  // namespace jouleprof
