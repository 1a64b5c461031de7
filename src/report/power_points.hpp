// Power over time for display, from a channel's own series: cumulative counters differentiated
// between consecutive counter updates (so a coarse counter polled fast gives one honest step per
// update, not spikes between identical readings), power readings as they were sampled.
#pragma once

#include <cstddef>
#include <vector>

#include "jouleprof/series.hpp"

namespace jouleprof::report {

// Mean power over [begin_ns, end_ns).
struct PowerInterval {
  TimeNs begin_ns = 0;
  TimeNs end_ns = 0;
  double power_w = 0.0;
};

// Counters: one interval between each two consecutive counter_knots (core/counter_knots.hpp),
// power = energy difference / time difference. Power channels: one interval per pair of
// consecutive samples, power = mean of the two readings (the trapezoid rule's mean). Intervals
// that overlap a recorded gap are left out. Other kinds give nothing. When more than
// `max_intervals` result, they are averaged (time-weighted) into that many equal time buckets.
std::vector<PowerInterval> power_intervals(const Series& series, std::size_t max_intervals);

// Highest power in the intervals (0 for none): the chart's scale. It is not the channel's peak
// power, which its summary gives by one rule (summarize_channel).
double highest_plotted_power_w(const std::vector<PowerInterval>& intervals);

}  // namespace jouleprof::report
