#include "sampling/sampler.hpp"

#include <fmt/format.h>
#include <signal.h>
#include <time.h>

#include <algorithm>
#include <cmath>

#include "jouleprof/child_process.hpp"

namespace jouleprof {
namespace {

TimeNs thread_cpu_now_ns() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<TimeNs>(ts.tv_sec) * kNsPerS + ts.tv_nsec;
}

}  // namespace

Sampler::Sampler(std::vector<std::unique_ptr<Source>> sources, SamplerOptions options)
    : sources_(std::move(sources)), options_(options) {
  for (std::size_t s = 0; s < sources_.size(); ++s) {
    const Source& source = *sources_[s];
    TimeNs period = options_.interval_ns > 0 ? options_.interval_ns : source.default_period_ns();
    periods_ns_.push_back(period > 0 ? period : kFallbackPollPeriodNs);
    buffers_.emplace_back();
    channels_of_.emplace_back();
    add_new_channels(s);
  }
}

void Sampler::add_new_channels(std::size_t s) {
  const std::vector<Channel>& channels = sources_[s]->channels();
  if (channels.size() <= buffers_[s].size()) return;
  // recent() and live() read the series and the live figures concurrently.
  std::lock_guard lock(mutex_);
  for (std::size_t i = buffers_[s].size(); i < channels.size(); ++i) {
    const Channel& channel = channels[i];
    channels_of_[s].push_back(series_.size());
    series_.emplace_back(channel);
    ChannelState state(channel);
    state.source = s;
    state.index = i;
    states_.push_back(state);
    live_.push_back({channel.id, channel.is_top_level(), 0.0, 0});
  }
  buffers_[s].resize(channels.size());
}

Sampler::~Sampler() { stop(); }

void Sampler::start() {
  if (thread_.joinable()) return;
  thread_ = std::thread([this] { run(); });
  std::unique_lock lock(mutex_);
  answered_.wait(lock, [this] { return first_poll_done_; });
}

void Sampler::stop() {
  if (!thread_.joinable()) return;
  {
    std::lock_guard lock(mutex_);  // a sync() caller checks the flag under it before waiting
    stop_requested_ = true;
  }
  wake_.notify();
  answered_.notify_all();
  thread_.join();
}

TimeNs Sampler::sync() {
  std::unique_lock lock(mutex_);
  if (!thread_.joinable() || stop_requested_) return 0;
  const std::uint64_t generation = sync_requested_.fetch_add(1) + 1;
  wake_.notify();
  answered_.wait(lock, [&] { return sync_done_ >= generation || stop_requested_; });
  return sync_done_ >= generation ? sync_t_ns_ : 0;
}

std::vector<LiveChannel> Sampler::live() const {
  std::lock_guard lock(mutex_);
  return live_;
}

std::vector<Series> Sampler::recent(TimeNs since_ns) const {
  std::lock_guard lock(mutex_);
  std::vector<Series> copies;
  copies.reserve(series_.size());
  for (const Series& s : series_) {
    Series copy(s.channel());
    const std::size_t first = s.lower_bound(since_ns);
    for (std::size_t i = first > 0 ? first - 1 : 0; i < s.size(); ++i) {
      (void)copy.append(s[i].t_ns, s[i].value);  // already validated when first stored
    }
    for (const Gap& g : s.gaps()) {
      if (g.end_ns >= since_ns) copy.add_gap(g);
    }
    copies.push_back(std::move(copy));
  }
  return copies;
}

std::vector<Series> Sampler::take_series() {
  stop();
  for (Series& s : series_) s.channel().measured_period_ns = s.measured_update_period_ns();
  return std::move(series_);
}

void Sampler::run() {
  // Process-directed signals go to the threads that handle them (the caller's), never here.
  sigset_t blocked;
  sigemptyset(&blocked);
  for (int sig : forwarded_signals()) sigaddset(&blocked, sig);
  pthread_sigmask(SIG_BLOCK, &blocked, nullptr);

  const TimeNs cpu_begin = thread_cpu_now_ns();
  origin_ns_ = monotonic_now_ns();
  std::vector<TimeNs> due(sources_.size(), origin_ns_);
  for (std::size_t s = 0; s < sources_.size(); ++s) {
    poll(s, origin_ns_);
    due[s] = origin_ns_ + periods_ns_[s];
  }
  {
    std::lock_guard lock(mutex_);
    first_poll_done_ = true;
  }
  answered_.notify_all();

  while (true) {
    const TimeNs next = sources_.empty() ? origin_ns_ + kFallbackPollPeriodNs
                                         : *std::min_element(due.begin(), due.end());
    const std::uint32_t seen = wake_.epoch();
    if (!stop_requested_ && sync_requested_ == sync_served_) wake_.wait_until(seen, next);
    if (stop_requested_) break;
    const std::uint64_t requested = sync_requested_;
    const std::uint64_t sync_generation = requested > sync_served_ ? requested : 0;
    const TimeNs now = monotonic_now_ns();
    for (std::size_t s = 0; s < sources_.size(); ++s) {
      if (now < due[s]) {
        if (sync_generation > 0) poll(s, now);
        continue;
      }
      poll(s, now);
      // Keep the grid when on time; after a stall, skip the missed polls rather than bursting.
      due[s] += periods_ns_[s];
      if (due[s] <= now) due[s] = now + periods_ns_[s];
    }
    if (sync_generation > 0) {
      {
        // Sources stamp their own readings, a little after `now`: the window edge is the latest
        // of those stamps, so that every channel has a reading at or just before it.
        std::lock_guard lock(mutex_);
        TimeNs latest = now;
        for (const Series& s : series_) {
          if (!s.empty()) latest = std::max(latest, s.end_ns());
        }
        sync_done_ = sync_generation;
        sync_t_ns_ = latest;
      }
      sync_served_ = sync_generation;
      answered_.notify_all();
    }
  }

  const TimeNs end = monotonic_now_ns();
  for (std::size_t s = 0; s < sources_.size(); ++s) poll(s, end);
  for (std::size_t c = 0; c < series_.size(); ++c) {
    ChannelState& state = states_[c];
    if (state.in_gap) {
      std::lock_guard lock(mutex_);  // recent() may read the gaps until the thread ends
      series_[c].add_gap({state.gap_begin_ns, end, state.gap_reason});
      state.in_gap = false;
    }
  }
  stats_.wall_ns = monotonic_now_ns() - origin_ns_;
  stats_.thread_cpu_ns = thread_cpu_now_ns() - cpu_begin;
}

void Sampler::poll(std::size_t source, TimeNs now) {
  add_new_channels(source);
  std::vector<Reading>& readings = buffers_[source];
  if (readings.empty()) return;
  sources_[source]->read(readings);
  ++stats_.polls;
  for (std::size_t i = 0; i < readings.size(); ++i) {
    Reading reading = readings[i];
    if (reading.t_ns == 0) reading.t_ns = now;
    const std::size_t c = channels_of_[source][i];
    const std::string error = reading.ok ? std::string() : sources_[source]->read_error(i);
    record(states_[c], series_[c], reading, error);
  }
}

void Sampler::fail(ChannelState& state, Series& series, TimeNs t_ns, std::string reason) {
  if (!state.in_gap) {
    state.in_gap = true;
    state.gap_begin_ns = series.empty() ? t_ns : series.end_ns();
    state.gap_reason = reason;
  }
  if (!state.warned) {
    state.warned = true;
    warnings_.push_back(fmt::format("{}: {} at +{:.3f} s; the interval is recorded as a gap",
                                    series.channel().id, reason, ns_to_s(t_ns - origin_ns_)));
  }
}

void Sampler::record(ChannelState& state, Series& series, const Reading& reading,
                     std::string_view error) {
  if (capped_) return;
  if (!reading.ok) {
    fail(state, series, reading.t_ns, error.empty() ? "read failed" : std::string(error));
    return;
  }
  // Timestamps never go back, whatever a source stamps.
  const TimeNs t_ns = series.empty() ? reading.t_ns : std::max(reading.t_ns, series.end_ns());
  const bool counter = series.channel().kind == ChannelKind::kEnergyCounter;
  const ReadingJudge::Verdict verdict = state.judge.judge(t_ns, reading.value);
  if (!verdict.problem.empty()) fail(state, series, t_ns, verdict.problem);
  if (!verdict.keep) return;
  const double stored = verdict.value;
  const bool after_gap = state.in_gap;
  if (state.in_gap) {
    std::lock_guard lock(mutex_);  // recent() reads gaps concurrently
    series.add_gap({state.gap_begin_ns, t_ns, state.gap_reason});
    state.in_gap = false;
  }
  if ((samples_ + 1) * sizeof(Sample) > options_.memory_limit_bytes) {
    hit_memory_limit(t_ns);
    return;
  }
  const double previous = state.last_stored;
  const TimeNs previous_t = series.empty() ? t_ns : series.end_ns();
  std::lock_guard lock(mutex_);
  (void)series.append(t_ns, stored);  // cannot fail: finite value, non-decreasing time
  ++samples_;

  LiveChannel& live = live_[static_cast<std::size_t>(&state - states_.data())];
  if (state.has_value) {
    if (counter) {
      live.energy_j += stored - previous;
    } else if (series.channel().kind == ChannelKind::kPower && !after_gap) {
      live.energy_j += 0.5 * (stored + previous) * ns_to_s(t_ns - previous_t);
    }
  }
  live.last_t_ns = t_ns;
  state.has_value = true;
  state.last_stored = stored;
}

void Sampler::hit_memory_limit(TimeNs t_ns) {
  capped_ = true;
  warnings_.push_back(fmt::format(
      "sampler memory limit of {} MB reached at +{:.3f} s: sampling stopped there, the rest of "
      "the run is a gap in every channel (raise the limit or the polling interval)",
      options_.memory_limit_bytes / 1'000'000, ns_to_s(t_ns - origin_ns_)));
  for (std::size_t c = 0; c < series_.size(); ++c) {
    ChannelState& state = states_[c];
    if (!state.in_gap) {
      state.in_gap = true;
      state.gap_begin_ns = series_[c].empty() ? t_ns : series_[c].end_ns();
      state.gap_reason = "sampler memory limit reached";
    }
  }
}

}  // namespace jouleprof
