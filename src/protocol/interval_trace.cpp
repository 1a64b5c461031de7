#include "jouleprof/interval_trace.hpp"

#include <fmt/format.h>

#include <cmath>

namespace jouleprof {

Status validate_trace(const IntervalTrace& trace, const std::string& origin) {
  if (trace.empty()) return Error(ErrorCode::kInvalidInput, origin + ": the series is empty");
  for (std::size_t i = 0; i < trace.size(); ++i) {
    const IntervalSample& s = trace[i];
    const std::string field = fmt::format("sample {}", i);
    if (i > 0 && s.end_ns <= trace[i - 1].end_ns) {
      return invalid_input(
          origin, field + " time", std::to_string(s.end_ns),
          s.end_ns == trace[i - 1].end_ns ? "duplicate time" : "times are not sorted");
    }
    if (!std::isfinite(s.energy_j)) {
      return invalid_input(origin, field + " energy", fmt::format("{}", s.energy_j),
                           "not a finite number");
    }
    if (s.duration_ns <= 0) {
      return invalid_input(origin, field + " interval", std::to_string(s.duration_ns),
                           "interval must be positive");
    }
  }
  return Status::Ok();
}

Result<IntervalTrace> intervals_from_series(const Series& series) {
  const Channel& c = series.channel();
  if (c.kind != ChannelKind::kEnergyCounter && c.kind != ChannelKind::kPower) {
    return Error(ErrorCode::kInvalidInput,
                 fmt::format("{}: channel of kind {} carries no energy", c.id, to_string(c.kind)));
  }
  IntervalTrace trace;
  for (std::size_t i = 1; i < series.size(); ++i) {
    const Sample& prev = series[i - 1];
    const Sample& cur = series[i];
    if (cur.t_ns == prev.t_ns) continue;
    const TimeNs dt = cur.t_ns - prev.t_ns;
    const double energy =
        c.kind == ChannelKind::kEnergyCounter ? cur.value - prev.value : cur.value * ns_to_s(dt);
    trace.push_back(IntervalSample{cur.t_ns, dt, energy});
  }
  JP_RETURN_IF_ERROR(validate_trace(trace, c.id));
  return trace;
}

IntervalTrace rebin(const Series& series, TimeNs from_ns, TimeNs to_ns, TimeNs width_ns) {
  IntervalTrace trace;
  if (width_ns <= 0) return trace;
  for (TimeNs begin = from_ns; begin + width_ns <= to_ns; begin += width_ns) {
    trace.push_back(IntervalSample{begin + width_ns, width_ns,
                                   series.energy_between_j(begin, begin + width_ns)});
  }
  return trace;
}

}  // namespace jouleprof
