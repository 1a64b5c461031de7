#include "sampling/wake_signal.hpp"

#include <gtest/gtest.h>

#include <thread>

namespace jouleprof {
namespace {

TEST(WakeSignal, ATimedWaitReturnsAtItsDeadlineNotBefore) {
  WakeSignal signal;
  const TimeNs deadline = monotonic_now_ns() + 20 * kNsPerMs;
  signal.wait_until(signal.epoch(), deadline);
  EXPECT_GE(monotonic_now_ns(), deadline);
}

// The bounds below are half the wait a wrong implementation would make, so no scheduling delay
// a test machine has fails them.
TEST(WakeSignal, ADeadlineAlreadyPastReturnsAtOnce) {
  WakeSignal signal;
  const TimeNs begin = monotonic_now_ns();
  signal.wait_until(signal.epoch(), begin - 60 * kNsPerS);
  EXPECT_LT(monotonic_now_ns() - begin, 30 * kNsPerS);
}

TEST(WakeSignal, NotifyWakesAWaiterLongBeforeItsDeadline) {
  WakeSignal signal;
  const TimeNs begin = monotonic_now_ns();
  std::thread waiter([&] { signal.wait_until(signal.epoch(), begin + 60 * kNsPerS); });
  // Notifying repeatedly covers a waiter that has not reached the wait yet: each notify moves
  // the epoch, and whichever epoch it read, a later notify differs from it.
  std::atomic<bool> woke{false};
  std::thread notifier([&] {
    while (!woke) {
      signal.notify();
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  });
  waiter.join();
  woke = true;
  notifier.join();
  EXPECT_LT(monotonic_now_ns() - begin, 30 * kNsPerS);
}

TEST(WakeSignal, ANotifyBetweenReadingTheEpochAndWaitingIsNotLost) {
  WakeSignal signal;
  const std::uint32_t seen = signal.epoch();
  signal.notify();
  const TimeNs begin = monotonic_now_ns();
  signal.wait_until(seen, begin + 60 * kNsPerS);
  EXPECT_LT(monotonic_now_ns() - begin, 30 * kNsPerS);
  EXPECT_NE(signal.epoch(), seen);
}

}  // namespace
}  // namespace jouleprof
