// IntervalTrace: energy per sampling interval, the form FECoM's rules work on. Sample i covers
// (end_ns − duration_ns, end_ns]. A cumulative counter becomes its differences; a power reading
// becomes power × interval (FECoM's rule for GPU power).
#pragma once

#include <string>
#include <vector>

#include "jouleprof/clock.hpp"
#include "jouleprof/result.hpp"
#include "jouleprof/series.hpp"

namespace jouleprof {

struct IntervalSample {
  TimeNs end_ns = 0;
  TimeNs duration_ns = 0;
  double energy_j = 0.0;

  double power_w() const { return duration_ns > 0 ? energy_j / ns_to_s(duration_ns) : 0.0; }
};

using IntervalTrace = std::vector<IntervalSample>;

// Checks what the rules rely on: finite energies, positive durations, strictly increasing ends.
// `origin` names the data in the error ("experiment-3.json: call 5 gpu").
Status validate_trace(const IntervalTrace& trace, const std::string& origin);

// Counters: one sample per reading after the first (the difference). Power channels: each reading
// × the time since the previous one (the first reading has no interval and is dropped).
Result<IntervalTrace> intervals_from_series(const Series& series);

// The series' energy in consecutive bins of width_ns from from_ns; a last partial bin before
// to_ns is dropped. Counters are interpolated, power is integrated by the trapezoid rule.
IntervalTrace rebin(const Series& series, TimeNs from_ns, TimeNs to_ns, TimeNs width_ns);

}  // namespace jouleprof
