// The gated protocol's named settings and the estimate of how long a measurement with them takes.
#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "core/quantity_text.hpp"
#include "jouleprof/gated_measurement.hpp"

namespace jouleprof {
namespace {

constexpr std::array<std::pair<GatedPreset, std::string_view>, 4> kPresetNames{{
    {GatedPreset::kFecom, "fecom"},
    {GatedPreset::kStandard, "standard"},
    {GatedPreset::kQuick, "quick"},
    {GatedPreset::kKernel, "kernel"},
}};

// Checks a gate needs before its window holds `available` ns less than it needs, at one check
// per period (a period of 0 re-checks at once).
TimeNs gate_wait_ns(TimeNs needed_ns, TimeNs available_ns, TimeNs check_period_ns) {
  const TimeNs missing = std::max<TimeNs>(0, needed_ns - available_ns);
  if (check_period_ns <= 0) return missing;
  const TimeNs checks = std::max<TimeNs>(1, (missing + check_period_ns - 1) / check_period_ns);
  return checks * check_period_ns;
}

}  // namespace

GatedOptions gated_preset(GatedPreset preset) {
  GatedOptions o;
  o.preset = std::string(to_string(preset));
  switch (preset) {
    case GatedPreset::kFecom:
      break;
    case GatedPreset::kStandard:
      o.repetitions = 5;
      o.interval_ns = 200 * kNsPerMs;
      o.last_n = 10;
      o.check_period_ns = 2 * kNsPerS;
      o.gate_timeout_ns = 60 * kNsPerS;
      o.tail_wait_ns = 3 * kNsPerS;
      o.min_counter_updates = 20;
      break;
    case GatedPreset::kQuick:
      o.repetitions = 3;
      o.interval_ns = 100 * kNsPerMs;
      o.last_n = 10;
      o.check_period_ns = kNsPerS;
      o.gate_timeout_ns = 15 * kNsPerS;
      o.tail_wait_ns = kNsPerS;
      // A window of K updates resolves its energy to about 1/K: 50 updates bound the quantisation
      // error of one repetition to ~2 % (RAPL: 50 ms windows; the CPU estimate, NVML: 0.5–5 s).
      o.min_counter_updates = 50;
      break;
    case GatedPreset::kKernel:
      // Intervals much shorter than 100 ms make the gate fail on the counters' own granularity:
      // a 1 ms RAPL update is 5 % of a 20 ms interval, and the CPU estimate is polled every
      // 100 ms.
      o.repetitions = 3;
      o.interval_ns = 100 * kNsPerMs;
      o.last_n = 5;
      o.check_period_ns = 100 * kNsPerMs;
      o.gate_timeout_ns = 10 * kNsPerS;
      o.tail_wait_ns = 200 * kNsPerMs;
      break;
  }
  return o;
}

std::string_view to_string(GatedPreset preset) {
  for (const auto& [p, name] : kPresetNames) {
    if (p == preset) return name;
  }
  return "fecom";
}

std::optional<GatedPreset> gated_preset_from_string(std::string_view name) {
  for (const auto& [p, n] : kPresetNames) {
    if (n == name) return p;
  }
  return std::nullopt;
}

GatedEstimate estimate_gated(const GatedOptions& o, TimeNs update_period_ns, TimeNs call_ns) {
  GatedEstimate e;
  e.repetitions = o.repetitions;
  e.call_known = call_ns > 0;
  e.warmup_ns = static_cast<TimeNs>(std::max<std::size_t>(o.warmup_runs, 1)) * call_ns;
  // The gate judges the last N intervals and reads one more for the rebinning's edge.
  const TimeNs needed = static_cast<TimeNs>(o.last_n + 1) * o.interval_ns;
  e.first_gate_ns = gate_wait_ns(needed, e.warmup_ns, o.check_period_ns);
  e.gate_ns = gate_wait_ns(needed, o.tail_wait_ns, o.check_period_ns);
  // The call repeats until the window spans K updates, and the last call overshoots by up to one.
  e.window_ns =
      std::max(static_cast<TimeNs>(o.min_counter_updates) * update_period_ns, call_ns) + call_ns;
  e.tail_ns = o.tail_wait_ns;
  if (o.repetitions > 0) {
    e.total_ns = e.warmup_ns + e.first_gate_ns + e.window_ns + e.tail_ns +
                 static_cast<TimeNs>(o.repetitions - 1) * e.repetition_ns();
  }
  return e;
}

std::string GatedEstimate::describe() const {
  return fmt::format("{} repetition{} × ≥ {} (gate {} + calls ≥ {}{} + tail {})", repetitions,
                     repetitions == 1 ? "" : "s", format_duration(repetition_ns()),
                     format_duration(gate_ns), format_duration(window_ns),
                     call_known ? "" : " + call", format_duration(tail_ns));
}

TimeNs slowest_nominal_period_ns(const std::vector<Channel>& channels, TimeNs fallback) {
  TimeNs slowest = 0;
  for (const Channel& c : channels) {
    if (c.carries_energy()) slowest = std::max(slowest, c.nominal_period_ns);
  }
  return slowest > 0 ? slowest : fallback;
}

}  // namespace jouleprof
