// The times a reader accepts from a file. A double of seconds (or microseconds) outside TimeNs's
// range has no conversion to it (undefined behaviour), and a wall-clock stamp of the year 1011
// overflows it; no clock reads such a time, so readers refuse it with the file, line and field.
#pragma once

#include <optional>

#include "jouleprof/clock.hpp"

namespace jouleprof {

// About 146 years either side of the clock's zero: half the TimeNs range, so that adding or
// subtracting two such times (an offset, a clock anchor) cannot overflow.
inline constexpr double kMaxTimeS = 4.6e9;

// Seconds read from a file as nanoseconds; nullopt when not finite or beyond ±kMaxTimeS.
inline std::optional<TimeNs> checked_s_to_ns(double s) {
  if (!(s >= -kMaxTimeS && s <= kMaxTimeS)) return std::nullopt;
  return static_cast<TimeNs>(s * 1e9);
}

}  // namespace jouleprof
