// Thread tracks weighed by their threads' CPU time (AttributionOptions::weigh_threads_by_cpu_time):
// a span on a thread that was busy gets more of an interval's energy than a span on a thread that
// was waiting. The weight of track "thread <tid>" in each interval between two readings of the
// thread's CPU-time series (a busy-time channel of domain "thread", id "…:thread:<tid>") is its
// CPU utilisation there, at least kMinThreadWeight; outside the series' readings it is 1.
#pragma once

#include <string>
#include <vector>

#include "attribution/interval_sweep.hpp"
#include "jouleprof/series.hpp"
#include "jouleprof/timeline.hpp"

namespace jouleprof::attribution {

// A waiting thread still gets a little: a weight of 0 would leave an interval in which only
// waiting threads have spans with nobody to charge.
inline constexpr double kMinThreadWeight = 0.01;

struct WeightStep {
  TimeNs begin_ns = 0;  // holds until the next step's begin
  double weight = 1.0;
};

// Per track: the steps of its weight over time, empty when the track has no CPU-time series
// (its weight is then constant). `matched` counts the tracks that got steps.
std::vector<std::vector<WeightStep>> thread_weight_steps(const Timeline& timeline,
                                                         const std::vector<const Series*>& series,
                                                         std::size_t* matched);

// Segments cut where their track's weight steps, each piece's weight multiplied by the step's.
// Order within a track is kept (build_segments' sortedness survives).
std::vector<Segment> split_by_weight_steps(const std::vector<Segment>& segments,
                                           const Timeline& timeline,
                                           const std::vector<std::vector<WeightStep>>& steps);

}  // namespace jouleprof::attribution
