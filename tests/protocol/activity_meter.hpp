// A test meter for the gated protocol: its power follows whether the measured call is busy, so
// every figure has a known answer.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "jouleprof/gated_measurement.hpp"
#include "jouleprof/monitor.hpp"
#include "jouleprof/source.hpp"

namespace jouleprof::gated_test {

// When the measured call is busy: it accrues continuously, as a device's energy does.
class Activity {
 public:
  void begin(TimeNs t) {
    std::lock_guard lock(mutex_);
    since_ = t;
  }
  void end(TimeNs t) {
    std::lock_guard lock(mutex_);
    intervals_.emplace_back(since_, t);
    since_ = 0;
  }
  // Busy time within [a, b], the call running now included.
  TimeNs busy_between(TimeNs a, TimeNs b) const {
    std::lock_guard lock(mutex_);
    const auto overlap = [&](TimeNs lo, TimeNs hi) {
      return std::max<TimeNs>(0, std::min(hi, b) - std::max(lo, a));
    };
    TimeNs busy = since_ > 0 ? overlap(since_, b) : 0;
    for (const auto& [lo, hi] : intervals_) busy += overlap(lo, hi);
    return busy;
  }

 private:
  mutable std::mutex mutex_;
  std::vector<std::pair<TimeNs, TimeNs>> intervals_;
  TimeNs since_ = 0;
};

// A meter whose power is idle_w plus active_w while the measured call is busy, exposed as a
// cumulative counter that only changes every update_period (like RAPL or NVML), plus an optional
// temperature and optional noise.
class ActivityMeter final : public Source {
 public:
  struct Config {
    double idle_w = 10.0;
    double active_w = 40.0;
    TimeNs update_period_ns = 10 * kNsPerMs;
    double temperature_c = 0.0;  // 0: no temperature channel
    double noise_w = 0.0;
    std::uint32_t seed = 7;
    // What the channel says it is: a source with no gain error ("simulated") makes its interval
    // the measurement's own.
    std::string source = "test-meter";
  };

  ActivityMeter(Config config, const Activity* activity)
      : config_(config), activity_(activity), origin_ns_(monotonic_now_ns()) {
    Channel energy;
    energy.id = "meter:package";
    energy.source = config.source;
    if (config.source == "simulated") energy.provenance = Provenance::kSimulated;
    energy.device = "cpu0";
    energy.domain = "package";
    energy.nominal_period_ns = config.update_period_ns;
    channels_.push_back(energy);
    if (config.temperature_c > 0) {
      Channel temp = energy;
      temp.id = "meter:temperature";
      temp.kind = ChannelKind::kTemperature;
      channels_.push_back(temp);
    }
  }

  std::string_view name() const override { return "test-meter"; }
  Availability availability() const override { return {true, "", ""}; }
  const std::vector<Channel>& channels() const override { return channels_; }
  TimeNs default_period_ns() const override { return 2 * kNsPerMs; }
  std::string read_error(std::size_t) const override { return ""; }

  void read(std::span<Reading> out) override {
    const TimeNs now = monotonic_now_ns();
    const TimeNs update = (now - origin_ns_) / config_.update_period_ns * config_.update_period_ns;
    if (update != last_update_ns_) {
      last_update_ns_ = update;
      const double noise = config_.noise_w > 0 ? noise_(rng_) * config_.noise_w : 0.0;
      noise_j_ += noise * ns_to_s(config_.update_period_ns);
      const TimeNs busy = activity_->busy_between(origin_ns_, origin_ns_ + update);
      value_j_ = config_.idle_w * ns_to_s(update) + config_.active_w * ns_to_s(busy) +
                 std::max(noise_j_, -config_.idle_w * ns_to_s(update) * 0.5);
    }
    out[0] = Reading{now, value_j_, true};
    if (out.size() > 1) out[1] = Reading{now, config_.temperature_c, true};
  }

 private:
  Config config_;
  const Activity* activity_;
  TimeNs origin_ns_;
  TimeNs last_update_ns_ = -1;
  double value_j_ = 0.0;
  double noise_j_ = 0.0;
  std::vector<Channel> channels_;
  std::mt19937 rng_{config_.seed};
  std::normal_distribution<double> noise_{0.0, 1.0};
};

struct Harness {
  Activity activity;
  std::vector<TimeNs> call_ns;  // written by the measuring thread only

  std::unique_ptr<Monitor> monitor(ActivityMeter::Config config) {
    std::vector<std::unique_ptr<Source>> sources;
    sources.push_back(std::make_unique<ActivityMeter>(config, &activity));
    return Monitor::from_sources(std::move(sources), MonitorOptions{});
  }

  // Spins for ~2 ms, far shorter than the counter's 10 ms update period.
  MeasuredCall short_call() {
    return [this] {
      const TimeNs t0 = monotonic_now_ns();
      activity.begin(t0);
      TimeNs t1 = t0;
      while (t1 - t0 < 2 * kNsPerMs) t1 = monotonic_now_ns();
      activity.end(t1);
      call_ns.push_back(t1 - t0);
      return Status::Ok();
    };
  }
};

}  // namespace jouleprof::gated_test
