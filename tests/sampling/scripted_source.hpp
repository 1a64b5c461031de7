// A Source for sampler tests: read k returns script[k] (then the last entry forever), stamped on
// a synthetic clock of k × step_ns after the real start, so measured periods are deterministic.
#pragma once

#include <atomic>
#include <optional>
#include <vector>

#include "jouleprof/source.hpp"

namespace jouleprof::testing {

class ScriptedSource final : public Source {
 public:
  // nullopt in the script = a failed read.
  ScriptedSource(ChannelKind kind, std::vector<std::optional<double>> script, TimeNs step_ns,
                 TimeNs period_ns = kNsPerMs)
      : script_(std::move(script)), step_ns_(step_ns), period_ns_(period_ns) {
    Channel c;
    c.id = "scripted:0";
    c.source = "scripted";
    c.kind = kind;
    channels_.push_back(c);
    origin_ns_ = monotonic_now_ns();
  }

  std::string_view name() const override { return "scripted"; }
  Availability availability() const override { return {true, "", ""}; }
  const std::vector<Channel>& channels() const override { return channels_; }
  TimeNs default_period_ns() const override { return period_ns_; }
  std::string read_error(std::size_t) const override { return failed_ ? "scripted failure" : ""; }

  void read(std::span<Reading> out) override {
    const std::size_t k = reads_.load();
    const std::optional<double>& v = script_[std::min(k, script_.size() - 1)];
    failed_ = !v.has_value();
    out[0] =
        Reading{origin_ns_ + static_cast<TimeNs>(k) * step_ns_, v.value_or(0.0), v.has_value()};
    reads_.store(k + 1);
  }

  std::size_t reads() const { return reads_.load(); }

 private:
  std::vector<Channel> channels_;
  std::vector<std::optional<double>> script_;
  TimeNs step_ns_;
  TimeNs period_ns_;
  TimeNs origin_ns_ = 0;
  bool failed_ = false;
  std::atomic<std::size_t> reads_{0};
};

}  // namespace jouleprof::testing
