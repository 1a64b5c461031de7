// How attribution picks a channel's method: an explicit request is kept. Auto runs the methods
// that may do best and keeps the one with the smallest expected error (the split's 95 %
// half-width summed over the channel, docs/uncertainty.md): with calibration weights, interpolate
// (its refinement weighing each class by whichever of its fitted and calibrated power is more
// certain) against calibrated; on a coarse counter without them, regress against interpolate; a
// fine counter without them is interpolated. The reason says which and why, with the figures
// compared.
#pragma once

#include <string>
#include <vector>

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
  // Auto's rivals, run beside `method` and compared by expected error (empty: `method` alone).
  std::vector<AttributionMethod> rivals;
};

// The expected error of a method's split on one channel, and the choice among candidates: the
// smallest, the first on a tie. `reason` gets the figures compared.
struct CandidateError {
  AttributionMethod method = AttributionMethod::kInterpolate;
  double split_j = 0.0;  // Σ of the split's 95 % half-widths over the spans and [unattributed]
};
std::size_t pick_smallest_error(const std::vector<CandidateError>& candidates,
                                double measured_energy_j, std::string& reason);

MethodChoice choose_method(AttributionMethod requested, const CounterFineness& counter,
                           bool has_calibration);

}  // namespace jouleprof::attribution
