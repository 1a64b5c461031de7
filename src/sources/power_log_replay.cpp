// A recorded trace replayed as a live source: each read returns the last recorded value at or
// before now, as a poller of the original device would have seen it.
#include <fmt/format.h>

#include "sources/backends.hpp"
#include "sources/power_log.hpp"

namespace jouleprof {
namespace {

class PowerLogReplaySource final : public Source {
 public:
  PowerLogReplaySource(const std::string& path, PowerLogFormat format, TimeNs first_sample_at_ns) {
    PowerLogOptions options;
    options.first_sample_at_ns = first_sample_at_ns;
    Result<PowerLog> trace = read_power_log(path, format, options);
    if (!trace) {
      availability_.reason = trace.error().message();
      availability_.fix = "check the trace file and its format (nvidia-smi, perf-stat, meter-csv)";
      return;
    }
    availability_.available = true;
    for (Series& s : trace->series) {
      s.channel().id = "replay:" + s.channel().id;
      s.channel().source = "trace-replay";
      channels_.push_back(s.channel());
      series_.push_back(std::move(s));
    }
    errors_.resize(channels_.size());
    if (!series_.empty() && series_.front().size() > 1) {
      period_ns_ =
          std::max<TimeNs>(kNsPerMs, (series_.front().end_ns() - series_.front().begin_ns()) /
                                         static_cast<TimeNs>(series_.front().size() - 1));
    }
  }

  std::string_view name() const override { return "trace-replay"; }
  Availability availability() const override { return availability_; }
  const std::vector<Channel>& channels() const override { return channels_; }

  void read(std::span<Reading> out) override {
    const TimeNs now = monotonic_now_ns();
    for (std::size_t i = 0; i < series_.size() && i < out.size(); ++i) {
      out[i] = read_at(i, now);
    }
  }

  std::string read_error(std::size_t channel) const override {
    return channel < errors_.size() ? errors_[channel] : "no such channel";
  }

  TimeNs default_period_ns() const override { return period_ns_; }

 private:
  Reading read_at(std::size_t i, TimeNs now) {
    const Series& s = series_[i];
    if (s.empty() || now < s.begin_ns() || now > s.end_ns()) {
      errors_[i] = fmt::format("{}: now is outside the recorded range [{}, {}] ns", channels_[i].id,
                               s.begin_ns(), s.end_ns());
      return Reading{now, 0.0, false};
    }
    std::size_t at = s.lower_bound(now);
    if (at == s.size() || s[at].t_ns > now) --at;  // last sample at or before now
    errors_[i].clear();
    return Reading{now, s[at].value, true};
  }

  Availability availability_;
  std::vector<Channel> channels_;
  std::vector<Series> series_;
  std::vector<std::string> errors_;
  TimeNs period_ns_ = 100 * kNsPerMs;
};

}  // namespace

std::unique_ptr<Source> make_power_log_replay_source(const std::string& path, PowerLogFormat format,
                                                     TimeNs first_sample_at_ns) {
  return std::make_unique<PowerLogReplaySource>(path, format, first_sample_at_ns);
}

}  // namespace jouleprof
