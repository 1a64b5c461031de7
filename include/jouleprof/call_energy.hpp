// Energy of one call measured in place (FECoM's rules, METHODS.md §2): the call's window, the idle
// baseline before it, net energy, and the tail of elevated power after it.
#pragma once

#include <cstddef>

#include "jouleprof/interval_trace.hpp"

namespace jouleprof {

struct CallAnalysisOptions {
  TimeNs baseline_window_ns = 20 * kNsPerS;  // the samples this long before the call
  double tail_margin_w = 0.0;           // tail while power ≥ baseline + margin (FECoM: GPU 2 W)
  std::size_t tail_moving_average = 5;  // forward moving-average window, in samples
  TimeNs tail_max_ns = 30 * kNsPerS;    // how long after the call the tail may last
};

inline constexpr double kFecomGpuTailMarginW = 2.0;

struct CallEnergy {
  double total_j = 0.0;           // all energy in the call's window
  double baseline_power_w = 0.0;  // mean power before the call
  double net_j = 0.0;             // total − baseline × duration
  double tail_j = 0.0;            // energy above the baseline in the tail
  double net_plus_tail_j = 0.0;
  TimeNs duration_ns = 0;  // the window's length (whole samples)
  TimeNs tail_duration_ns = 0;
  double mean_power_w = 0.0;  // over the window's samples
  double median_power_w = 0.0;
  double stdev_power_w = 0.0;
  std::size_t window_samples = 0;
  std::size_t baseline_samples = 0;
};

struct Tail {
  double energy_j = 0.0;  // above the baseline
  TimeNs duration_ns = 0;
};

// The tail that starts at trace[first]: samples while the forward moving average of power stays
// at or above baseline + margin, at most options.tail_max_ns after trace[first] begins.
Tail find_tail(const IntervalTrace& trace, std::size_t first, double baseline_power_w,
               const CallAnalysisOptions& options);

// The window runs from the sample whose end is nearest to start_ns to the sample before the one
// nearest to end_ns. A call shorter than one sample has an empty window: kUnsupported, with the
// advice to amplify it (repeat it in a loop) instead.
Result<CallEnergy> analyse_call(const IntervalTrace& trace, TimeNs start_ns, TimeNs end_ns,
                                const CallAnalysisOptions& options);

}  // namespace jouleprof
