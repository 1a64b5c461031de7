// How attribution picks a channel's method: an explicit request is kept; auto interpolates a
// fine counter (its update period short against the typical span on its tracks) and, for a coarse
// one, uses the calibrated split when calibration weights are given and regress otherwise. The
// reason says which and why, with the figures compared.
#pragma once

#include <string>

#include "jouleprof/attribution.hpp"
#include "jouleprof/clock.hpp"

namespace jouleprof::attribution {

struct CounterFineness {
  TimeNs update_period_ns = 0;
  TimeNs typical_span_ns = 0;
  double fine_counter_ratio = 0.5;  // AttributionOptions::fine_counter_ratio
  bool no_spans = false;            // nothing to split: any counter will do
};

struct MethodChoice {
  AttributionMethod method = AttributionMethod::kInterpolate;
  std::string reason;
};

MethodChoice choose_method(AttributionMethod requested, const CounterFineness& counter,
                           bool has_calibration);

}  // namespace jouleprof::attribution
