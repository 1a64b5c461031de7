// A ProbeClock for tests: time starts at zero and moves only when the probe sleeps, so the probe's
// decisions depend on its own schedule of reads and never on when the test machine runs a thread.
// A hook runs at every sleep: it is where the test moves the fake hardware between two reads.
#pragma once

#include <functional>
#include <utility>
#include <vector>

#include "sources/liveness_probe.hpp"

namespace jouleprof::testing {

class ManualProbeClock final : public ProbeClock {
 public:
  explicit ManualProbeClock(std::function<void()> between_reads = {})
      : between_reads_(std::move(between_reads)) {}

  TimeNs now_ns() override { return now_ns_; }
  void sleep_ns(TimeNs duration_ns) override {
    sleeps_ns_.push_back(duration_ns);
    now_ns_ += duration_ns + oversleep_ns_;
    if (between_reads_) between_reads_();
  }

  // Every sleep returns this much later than asked (a loaded machine waking the thread late).
  void set_oversleep_ns(TimeNs late_ns) { oversleep_ns_ = late_ns; }
  const std::vector<TimeNs>& sleeps_ns() const { return sleeps_ns_; }

 private:
  std::function<void()> between_reads_;
  TimeNs now_ns_ = 0;
  TimeNs oversleep_ns_ = 0;
  std::vector<TimeNs> sleeps_ns_;
};

}  // namespace jouleprof::testing
