#include "timeline/raw_clock.hpp"

#include <cstdlib>
#include <fstream>
#include <string>

namespace jouleprof::timeline {
namespace {
__extension__ typedef __int128 Int128;  // NOLINT(modernize-use-using): __extension__ needs typedef
}  // namespace

std::string_view to_string(RawClock clock) {
  return clock == RawClock::kTsc ? "tsc" : "clock_gettime";
}

RawClock choose_raw_clock() {
#if JOULEPROF_HAVE_TSC
  if (const char* forced = std::getenv("JOULEPROF_RECORDER_CLOCK")) {
    const std::string_view choice(forced);
    if (choice == "tsc") return RawClock::kTsc;
    if (choice == "clock_gettime") return RawClock::kMonotonic;
  }
  std::ifstream source("/sys/devices/system/clocksource/clocksource0/current_clocksource");
  std::string name;
  if (source >> name && name == "tsc") return RawClock::kTsc;
#endif
  return RawClock::kMonotonic;
}

RawAnchor RawAnchor::capture(RawClock clock) {
  if (clock == RawClock::kMonotonic) {
    const std::int64_t now = raw_now(clock);
    return RawAnchor{now, now};
  }
  // Bracket the raw read with two monotonic reads and keep the tightest of a few tries: a
  // preemption between the reads would otherwise put the anchor off by microseconds.
  RawAnchor best;
  TimeNs best_bracket_ns = -1;
  for (int attempt = 0; attempt < 5; ++attempt) {
    const TimeNs before = monotonic_now_ns();
    const std::int64_t raw = raw_now(clock);
    const TimeNs after = monotonic_now_ns();
    if (best_bracket_ns < 0 || after - before < best_bracket_ns) {
      best_bracket_ns = after - before;
      best = RawAnchor{raw, before + (after - before) / 2};
    }
  }
  return best;
}

RawToMonotonic::RawToMonotonic(RawClock clock, RawAnchor first, RawAnchor second)
    : clock_(clock),
      first_(first),
      raw_span_(second.raw - first.raw),
      ns_span_(second.monotonic_ns - first.monotonic_ns) {}

TimeNs RawToMonotonic::operator()(std::int64_t raw) const {
  if (clock_ == RawClock::kMonotonic) return raw;
  if (raw_span_ <= 0) return first_.monotonic_ns;
  // 128-bit product: raw offsets reach 10^13 ticks in an hour and spans as much again.
  const Int128 offset = static_cast<Int128>(raw - first_.raw) * ns_span_;
  return first_.monotonic_ns + static_cast<TimeNs>(offset / raw_span_);
}

}  // namespace jouleprof::timeline
