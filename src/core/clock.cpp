#include "jouleprof/clock.hpp"

#include <time.h>

namespace jouleprof {
namespace {

TimeNs read_clock(clockid_t id) {
  timespec ts{};
  clock_gettime(id, &ts);
  return static_cast<TimeNs>(ts.tv_sec) * kNsPerS + ts.tv_nsec;
}

}  // namespace

TimeNs monotonic_now_ns() { return read_clock(CLOCK_MONOTONIC); }
TimeNs realtime_now_ns() { return read_clock(CLOCK_REALTIME); }

ClockAnchor ClockAnchor::capture() {
  // Bracket the realtime read with two monotonic reads and take their midpoint: the anchor's
  // error is then at most half the (tiny) bracket.
  const TimeNs before = monotonic_now_ns();
  const TimeNs real = realtime_now_ns();
  const TimeNs after = monotonic_now_ns();
  return ClockAnchor{before + (after - before) / 2, real};
}

}  // namespace jouleprof
