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
    return {requested, fmt::format("requested ({})", comparison)};
  }
  if (fine) return {AttributionMethod::kInterpolate, "auto: fine counter, " + comparison};
  if (has_calibration) {
    return {AttributionMethod::kCalibrated,
            "auto: coarse counter, " + comparison + "; calibration weights given"};
  }
  return {AttributionMethod::kRegress,
          "auto: coarse counter, " + comparison + "; no calibration, so regress"};
}

}  // namespace jouleprof::attribution
