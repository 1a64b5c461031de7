// A GPU library's own timestamp of a reading, placed on jouleprof's monotonic axis. ROCm SMI stamps
// its energy counter with the driver's time of the metrics sample (ns) and Level Zero stamps each
// domain's counter with the time it was captured (µs, only good for differences within one
// domain): either says when the value was measured, which a poll that reads a cached value does
// not. The offset between the device clock and CLOCK_MONOTONIC is taken at the first stamped read
// (that value is taken as fresh); later stamps keep it, held between the previous reading and the
// read itself, so a clock that drifts or jumps can never place a reading in the future or before
// the one before it.
#pragma once

#include <cstdint>
#include <optional>

#include "jouleprof/clock.hpp"

namespace jouleprof {

class DeviceClock {
 public:
  explicit DeviceClock(TimeNs ns_per_tick = 1) : ns_per_tick_(ns_per_tick) {}

  // The monotonic time of a value stamped `stamp_ticks` on the device clock and read at `now_ns`;
  // a stamp of 0 (the library gave none) places it at `now_ns`.
  TimeNs place(std::uint64_t stamp_ticks, TimeNs now_ns);
  // The last time place() returned (0 before the first).
  TimeNs previous_ns() const { return previous_ns_; }

 private:
  TimeNs ns_per_tick_;
  std::optional<TimeNs> offset_ns_;
  TimeNs previous_ns_ = 0;
};

}  // namespace jouleprof
