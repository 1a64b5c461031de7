// The uncertainty of what a channel measured over a window (docs/uncertainty.md): the source's
// gain error, the counter's unit, the interpolated edges of the window, gaps and, for an estimate
// source, its model error, each as a 95 % half-width in joules. summarize_channel gives every
// channel summary its interval from them; attribution carries them down to the tree's nodes.
#pragma once

#include <span>
#include <vector>

#include "jouleprof/clock.hpp"
#include "jouleprof/energy_band.hpp"
#include "jouleprof/series.hpp"

namespace jouleprof {

// The lowest and highest mean power of the update intervals (a counter's, or between a power
// channel's readings) that overlap a window: the range the device showed there.
struct PowerRange {
  double low_w = 0.0;
  double high_w = 0.0;
  double width_w() const { return high_w - low_w; }
};
PowerRange observed_power_range(const Series& series, TimeNs begin_ns, TimeNs end_ns);

// How stale a reading can be: the counter's nominal update period, bounded by the mean interval
// between readings; 0 when the period is not known.
TimeNs reading_staleness_ns(const Series& series);

// The source's gain error as a 95 % fraction of its figure, by source (the table in
// docs/uncertainty.md): NVML's documented ±5 %, 0 for the simulated source.
double source_gain_error(const Channel& channel);

// An estimate source's own model error as a 95 % fraction of its figure; 0 for a measurement.
double estimate_model_error(const Channel& channel);

// The terms of a figure of `energy_j` from this channel that every window of it has alike: the
// source's gain error and an estimate's model error. Repeating a measurement does not shrink them.
std::vector<UncertaintyPart> shared_channel_uncertainty(const Channel& channel, double energy_j);

// The terms of the channel's energy over [begin_ns, end_ns] (clipped to what it covers), whose
// figure is `energy_j`, that belong to that window: quantisation, edges, read delay, gaps.
std::vector<UncertaintyPart> window_uncertainty(const Series& series, TimeNs begin_ns,
                                                TimeNs end_ns, double energy_j);

// One of several windows whose energies make a mean (the steps of a run, its epochs).
struct RepetitionWindow {
  TimeNs begin_ns = 0;
  TimeNs end_ns = 0;
};

// The window terms of the mean of the channel's energies `energy_j[i]` over `windows[i]` that
// every window has alike (read delay, averaging: each window's ends lag the same way, a bias that
// repeating does not shrink), each window's averaged. Linear in the series and the windows'
// lengths, so that thousands of steps cost what one pass over the readings does.
std::vector<UncertaintyPart> repeating_window_uncertainty(const Series& series,
                                                          std::span<const RepetitionWindow> windows,
                                                          std::span<const double> energy_j);

// Both kinds: every term of that figure. Terms that contribute nothing are left out.
std::vector<UncertaintyPart> channel_uncertainty(const Series& series, TimeNs begin_ns,
                                                 TimeNs end_ns, double energy_j);

}  // namespace jouleprof
