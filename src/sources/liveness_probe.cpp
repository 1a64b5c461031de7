#include "sources/liveness_probe.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <optional>
#include <thread>
#include <vector>

namespace jouleprof {
namespace {

class MonotonicProbeClock final : public ProbeClock {
 public:
  TimeNs now_ns() override { return monotonic_now_ns(); }
  void sleep_ns(TimeNs duration_ns) override {
    std::this_thread::sleep_for(std::chrono::nanoseconds(duration_ns));
  }
};

}  // namespace

ProbeClock& monotonic_probe_clock() {
  static MonotonicProbeClock clock;
  return clock;
}

Liveness probe_liveness(Source& source, TimeNs window_ns, ProbeClock& clock) {
  const std::vector<Channel>& channels = source.channels();
  std::vector<Reading> readings(channels.size());
  std::vector<std::optional<double>> first(channels.size());  // each counter's first good value
  const TimeNs end_ns = clock.now_ns() + window_ns;
  while (true) {
    source.read(readings);
    for (std::size_t i = 0; i < channels.size(); ++i) {
      if (!readings[i].ok) continue;
      const Channel& channel = channels[i];
      if (channel.kind == ChannelKind::kPower && readings[i].value > 0.0) {
        return {true, fmt::format("{} read {:.3f} W", channel.id, readings[i].value)};
      }
      if (channel.kind != ChannelKind::kEnergyCounter) continue;
      if (!first[i]) {
        first[i] = readings[i].value;
      } else if (readings[i].value != *first[i]) {
        return {true,
                fmt::format("{} moved by {:.6f} J", channel.id, readings[i].value - *first[i])};
      }
    }
    const TimeNs now = clock.now_ns();
    if (now >= end_ns) break;
    clock.sleep_ns(std::min(kProbeReadPeriodNs, end_ns - now));
  }

  std::vector<std::string> still;
  for (std::size_t i = 0; i < channels.size(); ++i) {
    if (channels[i].kind == ChannelKind::kEnergyCounter && first[i]) {
      still.push_back(fmt::format("{} unchanged", channels[i].id));
    } else if (channels[i].kind == ChannelKind::kPower && readings[i].ok) {
      still.push_back(fmt::format("{} read 0 W", channels[i].id));
    }
  }
  const std::string seen = still.empty() ? "no energy or power channel could be read"
                                         : fmt::to_string(fmt::join(still, ", "));
  return {false, fmt::format("its counters did not move in {:.0f} ms ({})",
                             ns_to_s(window_ns) * 1e3, seen)};
}

}  // namespace jouleprof
