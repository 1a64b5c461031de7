// One clock for everything: int64 nanoseconds of CLOCK_MONOTONIC (std::chrono::steady_clock on
// Linux). A run stores one (monotonic, realtime) anchor pair so that wall-clock data (traces,
// meter logs, nvidia-smi logs) can be mapped onto the monotonic axis on import.
#pragma once

#include <cstdint>

namespace jouleprof {

using TimeNs = std::int64_t;

inline constexpr TimeNs kNsPerUs = 1'000;
inline constexpr TimeNs kNsPerMs = 1'000'000;
inline constexpr TimeNs kNsPerS = 1'000'000'000;

TimeNs monotonic_now_ns();
TimeNs realtime_now_ns();

inline constexpr double ns_to_s(TimeNs ns) { return static_cast<double>(ns) * 1e-9; }
inline constexpr TimeNs s_to_ns(double s) { return static_cast<TimeNs>(s * 1e9); }

// A pair of readings of both clocks taken as close together as possible.
struct ClockAnchor {
  TimeNs monotonic_ns = 0;
  TimeNs realtime_ns = 0;

  static ClockAnchor capture();
  TimeNs realtime_to_monotonic(TimeNs realtime) const {
    return realtime - (realtime_ns - monotonic_ns);
  }
  TimeNs monotonic_to_realtime(TimeNs monotonic) const {
    return monotonic + (realtime_ns - monotonic_ns);
  }
};

}  // namespace jouleprof
