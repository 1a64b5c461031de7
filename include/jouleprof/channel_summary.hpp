// Per-channel figures over a run window: gross energy, energy net of an idle baseline, duration,
// mean and peak power. The one place they are made: the Monitor, and attribution for a profile
// whose channels nobody summarised yet (one made from files); see docs/sources.md "## Sampler".
#pragma once

#include <optional>

#include "jouleprof/clock.hpp"
#include "jouleprof/profile.hpp"
#include "jouleprof/series.hpp"

namespace jouleprof {

// Peak power is the highest mean power over any window of this length (counters), so that one
// short counter interval's quantisation does not pass for a peak; option `peak_window_ns`.
inline constexpr TimeNs kDefaultPeakWindowNs = 100 * kNsPerMs;

struct IdleWindow {
  TimeNs begin_ns = 0;
  TimeNs end_ns = 0;
};

// Figures of an energy channel (counter or power) over [begin_ns, end_ns] clipped to what the
// series covers. Counters: energy by interpolating the counter; peak over windows of
// max(peak_window_ns, 2 × measured update period), each widened by how stale a reading can be
// (the nominal update period, at most the reading interval), so that it never exceeds the truth.
// Power channels: trapezoid integral outside gaps; peak = the highest sample. With an idle window:
// idle power = energy in the window / its length, net = gross − idle power × duration.
ChannelSummary summarize_channel(const Series& series, TimeNs begin_ns, TimeNs end_ns,
                                 const std::optional<IdleWindow>& idle,
                                 TimeNs peak_window_ns = kDefaultPeakWindowNs);

// Records an idle baseline in a summary: idle power, and net = gross − idle power × duration.
void apply_idle_power(ChannelSummary& summary, double idle_power_w);

// Grams of CO2-equivalent for an energy at a grid intensity in g/kWh.
inline double co2e_g(double energy_j, double grid_g_per_kwh) {
  return energy_j / 3.6e6 * grid_g_per_kwh;
}

}  // namespace jouleprof
