// Tests of "permission denied" run as root in CI, and root reads a chmod-000 file anyway: it holds
// CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH. This guard drops those two capabilities from the
// effective set for its lifetime (they stay permitted, so they can be raised again), which makes
// the kernel apply file modes to the test process exactly as it would to an unprivileged user.
#pragma once

#include <linux/capability.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace jouleprof::testing {

class WithoutFileCapabilities {
 public:
  WithoutFileCapabilities() {
    header_.version = _LINUX_CAPABILITY_VERSION_3;
    header_.pid = 0;
    if (::syscall(SYS_capget, &header_, saved_) != 0) return;
    __user_cap_data_struct reduced[2] = {saved_[0], saved_[1]};
    constexpr unsigned kDropMask = (1u << CAP_DAC_OVERRIDE) | (1u << CAP_DAC_READ_SEARCH);
    reduced[0].effective &= ~kDropMask;
    active_ = ::syscall(SYS_capset, &header_, reduced) == 0;
  }
  ~WithoutFileCapabilities() {
    if (active_) ::syscall(SYS_capset, &header_, saved_);
  }
  WithoutFileCapabilities(const WithoutFileCapabilities&) = delete;
  WithoutFileCapabilities& operator=(const WithoutFileCapabilities&) = delete;

  // False when the capabilities could not be dropped (then a root test cannot see the denial).
  bool effective() const { return active_ || ::geteuid() != 0; }

 private:
  __user_cap_header_struct header_{};
  __user_cap_data_struct saved_[2]{};
  bool active_ = false;
};

}  // namespace jouleprof::testing
