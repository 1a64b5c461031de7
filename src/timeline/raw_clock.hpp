// Raw timestamps for the recorder's hot path, converted to CLOCK_MONOTONIC nanoseconds later.
//
// clock_gettime(CLOCK_MONOTONIC) costs 20–40 ns through the vDSO on the machines we measured;
// two of them alone would spend the whole 50 ns budget of a begin+end pair. Reading the CPU's
// time-stamp counter (rdtsc) costs less. It is used only where the kernel itself has chosen the
// TSC as its clock source (so it is invariant and synchronised across CPUs and CLOCK_MONOTONIC is
// derived from it); the raw values are mapped onto CLOCK_MONOTONIC by linear interpolation between
// two anchors, one taken when recording starts and one when it is collected. Between the anchors
// the mapping's error is at most the anchors' own reading error (tens of ns) plus whatever rate
// change NTP slewing applied to CLOCK_MONOTONIC in between (parts per million).
#pragma once

#include <time.h>

#include <cstdint>
#include <string_view>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define JOULEPROF_HAVE_TSC 1
#else
#define JOULEPROF_HAVE_TSC 0
#endif

#include "jouleprof/clock.hpp"

namespace jouleprof::timeline {

enum class RawClock : std::uint8_t { kMonotonic = 0, kTsc = 1 };

std::string_view to_string(RawClock clock);

// The TSC when the kernel's clock source is "tsc" (/sys/devices/system/clocksource), else
// CLOCK_MONOTONIC; the environment variable JOULEPROF_RECORDER_CLOCK (tsc | clock_gettime)
// overrides where the TSC exists.
RawClock choose_raw_clock();

inline std::int64_t raw_now(RawClock clock) noexcept {
#if JOULEPROF_HAVE_TSC
  if (clock == RawClock::kTsc) return static_cast<std::int64_t>(__rdtsc());
#else
  (void)clock;
#endif
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * kNsPerS + ts.tv_nsec;
}

// One raw reading and the monotonic time it corresponds to.
struct RawAnchor {
  std::int64_t raw = 0;
  TimeNs monotonic_ns = 0;

  static RawAnchor capture(RawClock clock);
};

// Maps raw readings onto CLOCK_MONOTONIC nanoseconds through the line between two anchors.
class RawToMonotonic {
 public:
  RawToMonotonic(RawClock clock, RawAnchor first, RawAnchor second);
  TimeNs operator()(std::int64_t raw) const;

 private:
  RawClock clock_;
  RawAnchor first_;
  std::int64_t raw_span_;
  TimeNs ns_span_;
};

}  // namespace jouleprof::timeline
