// A Source whose next readings the test sets by hand.
#pragma once

#include <string>
#include <vector>

#include "jouleprof/source.hpp"

namespace jouleprof::testing {

class FakeSource : public Source {
 public:
  FakeSource(std::string name, std::vector<Channel> channels)
      : name_(std::move(name)),
        channels_(std::move(channels)),
        next_(channels_.size()),
        errors_(channels_.size()) {}

  std::string_view name() const override { return name_; }
  Availability availability() const override { return {true, "", ""}; }
  const std::vector<Channel>& channels() const override { return channels_; }
  void read(std::span<Reading> out) override {
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = next_[i];
  }
  std::string read_error(std::size_t channel) const override { return errors_[channel]; }
  TimeNs default_period_ns() const override { return 20 * kNsPerMs; }

  void set(std::size_t channel, TimeNs t_ns, double value) {
    next_[channel] = Reading{t_ns, value, true};
    errors_[channel].clear();
  }
  void fail(std::size_t channel, std::string why) {
    next_[channel].ok = false;
    errors_[channel] = std::move(why);
  }

 private:
  std::string name_;
  std::vector<Channel> channels_;
  std::vector<Reading> next_;
  std::vector<std::string> errors_;
};

}  // namespace jouleprof::testing
