#include "attribution/method_choice.hpp"

#include <fmt/format.h>

namespace jouleprof::attribution {
namespace {

std::string format_ms(TimeNs ns) { return fmt::format("{:.3g} ms", static_cast<double>(ns) / 1e6); }

}  // namespace

MethodChoice choose_method(AttributionMethod requested, const CounterFineness& counter,
                           bool has_calibration) {
  const bool fine = counter.no_spans ||
                    static_cast<double>(counter.update_period_ns) <=
                        counter.fine_counter_ratio * static_cast<double>(counter.typical_span_ns);
  const std::string comparison =
      fmt::format("update period {} vs typical span {} (fine when ≤ {:g}×)",
                  format_ms(counter.update_period_ns), format_ms(counter.typical_span_ns),
                  counter.fine_counter_ratio);
  if (requested != AttributionMethod::kAuto) {
    return {requested, fmt::format("requested ({})", comparison), {}};
  }
  const std::string fineness =
      (fine ? "auto: fine counter, " : "auto: coarse counter, ") + comparison;
  if (has_calibration) {
    return {AttributionMethod::kInterpolate,
            fineness +
                "; calibration weights given, so interpolate (refined with them) against "
                "calibrated",
            {AttributionMethod::kCalibrated}};
  }
  if (fine) return {AttributionMethod::kInterpolate, fineness, {}};
  return {AttributionMethod::kRegress,
          fineness + "; no calibration, so regress against interpolate",
          {AttributionMethod::kInterpolate}};
}

std::size_t pick_smallest_error(const std::vector<CandidateError>& candidates,
                                double measured_energy_j, std::string& reason) {
  std::size_t best = 0;
  std::string compared;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    if (candidates[i].split_j < candidates[best].split_j) best = i;
    const double share = measured_energy_j > 0.0 ? candidates[i].split_j / measured_energy_j : 0.0;
    compared +=
        fmt::format("{}{} ±{:.4g} J ({:.2f} % of the channel)", compared.empty() ? "" : ", ",
                    to_string(candidates[i].method), candidates[i].split_j, 100.0 * share);
  }
  reason += fmt::format("; expected split error: {}; {} has the smallest", compared,
                        to_string(candidates[best].method));
  return best;
}

}  // namespace jouleprof::attribution
