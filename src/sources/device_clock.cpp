#include "sources/device_clock.hpp"

#include <algorithm>

namespace jouleprof {

TimeNs DeviceClock::place(std::uint64_t stamp_ticks, TimeNs now_ns) {
  TimeNs t = now_ns;
  if (stamp_ticks > 0) {
    const TimeNs stamp_ns = static_cast<TimeNs>(stamp_ticks) * ns_per_tick_;
    if (!offset_ns_) offset_ns_ = now_ns - stamp_ns;
    t = std::clamp<TimeNs>(stamp_ns + *offset_ns_, std::min(previous_ns_, now_ns), now_ns);
  }
  previous_ns_ = t;
  return t;
}

}  // namespace jouleprof
