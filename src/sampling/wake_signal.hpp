// WakeSignal: lets one thread sleep until an absolute CLOCK_MONOTONIC deadline or until another
// thread notifies it, whichever comes first.
//
// The sampler sleeps between polls up to a thousand times a second. A condition variable costs a
// mutex hand-off on top of the kernel's sleep and wake-up on every one of those; this is one
// futex word, so a timed-out wait is a single system call (measured in bench/sampler_bench.cpp:
// on a 2-vCPU VM the condition variable added about 2.5 µs of CPU per wake-up).
//
//   const std::uint32_t seen = signal.epoch();
//   if (!work_requested()) signal.wait_until(seen, deadline_ns);   // returns early on notify()
//
// Reading the epoch before checking the condition is what makes a notify() between the check and
// the wait impossible to miss: the wait returns at once when the epoch has moved.
#pragma once

#include <atomic>
#include <cstdint>

#include "jouleprof/clock.hpp"

namespace jouleprof {

class WakeSignal {
 public:
  std::uint32_t epoch() const { return epoch_.load(std::memory_order_acquire); }
  // Returns at deadline_ns (monotonic), on notify(), or when the epoch is no longer `seen`.
  void wait_until(std::uint32_t seen, TimeNs deadline_ns);
  void notify();

 private:
  std::atomic<std::uint32_t> epoch_{0};
};

}  // namespace jouleprof
