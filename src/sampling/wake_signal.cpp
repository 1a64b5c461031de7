#include "sampling/wake_signal.hpp"

#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>

namespace jouleprof {
namespace {

static_assert(sizeof(std::atomic<std::uint32_t>) == sizeof(std::uint32_t),
              "the futex word must be the atomic itself");

long futex(std::atomic<std::uint32_t>& word, int op, std::uint32_t value, const timespec* timeout,
           std::uint32_t bitset) {
  return syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&word), op, value, timeout, nullptr,
                 bitset);
}

}  // namespace

void WakeSignal::wait_until(std::uint32_t seen, TimeNs deadline_ns) {
  // FUTEX_WAIT_BITSET takes an absolute CLOCK_MONOTONIC deadline (plain FUTEX_WAIT a relative
  // one), so a wait interrupted by a signal resumes towards the same instant.
  const timespec deadline{static_cast<time_t>(deadline_ns / kNsPerS),
                          static_cast<long>(deadline_ns % kNsPerS)};
  while (epoch() == seen) {
    // EAGAIN (the epoch moved before the call) ends the loop; EINTR waits again.
    const long rc = futex(epoch_, FUTEX_WAIT_BITSET | FUTEX_PRIVATE_FLAG, seen, &deadline,
                          FUTEX_BITSET_MATCH_ANY);
    if (rc == -1 && errno == ETIMEDOUT) return;
  }
}

void WakeSignal::notify() {
  epoch_.fetch_add(1, std::memory_order_acq_rel);
  futex(epoch_, FUTEX_WAKE | FUTEX_PRIVATE_FLAG, 1, nullptr, 0);
}

}  // namespace jouleprof
