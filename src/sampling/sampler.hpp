// Sampler: one background thread that polls every source at its own period and appends the
// readings to one Series per channel.
//
//   Sampler sampler(std::move(sources), SamplerOptions{});
//   sampler.start();           // returns after the first reading of every source
//   … the measured work …
//   sampler.stop();            // takes a last reading, joins the thread
//   std::vector<Series> series = sampler.take_series();
//
// Threading: the series, the gaps and the warnings are written by the sampling thread only and
// handed over after stop() joins it (the join is the synchronisation). live() and recent() are the
// calls that read while sampling: the thread appends each sample under a mutex, and they copy
// under the same mutex. Between polls the thread sleeps on a WakeSignal (one futex word, the
// cheapest timed sleep Linux has), which stop() and sync() notify.
//
// What the sampler guarantees per channel: monotonic timestamps; a failed read opens a Gap (closed
// at the next good read) and one warning; every reading is judged by the channel's ReadingJudge
// (sources/plausibility.hpp): a cumulative counter that goes backwards or jumps beyond what the
// device can draw, a non-finite or impossible value is never stored: the interval becomes a Gap,
// a warning says so, and a counter is rebased so that it stays non-decreasing (the energy of a
// reset is counted as zero, not invented); the update period actually observed goes into
// Channel::measured_period_ns. Memory is bounded by SamplerOptions::memory_limit_bytes over all
// series (16 B per sample).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "jouleprof/clock.hpp"
#include "jouleprof/series.hpp"
#include "jouleprof/source.hpp"
#include "sampling/wake_signal.hpp"
#include "sources/plausibility.hpp"

namespace jouleprof {

// 1 GiB: 18 channel-hours at 1 kHz, 186 at RAPL's default 10 ms period.
inline constexpr std::size_t kDefaultSamplerMemoryLimitBytes = std::size_t{1} << 30;
// Used when a source reports no default period of its own.
inline constexpr TimeNs kFallbackPollPeriodNs = 100 * kNsPerMs;

struct SamplerOptions {
  TimeNs interval_ns = 0;  // 0: each source's default_period_ns(); otherwise every source's period
  std::size_t memory_limit_bytes = kDefaultSamplerMemoryLimitBytes;
};

// What the sampling itself cost.
struct SamplerStats {
  TimeNs thread_cpu_ns = 0;  // CPU time of the sampling thread (CLOCK_THREAD_CPUTIME_ID)
  TimeNs wall_ns = 0;        // from the thread's start to its end
  std::uint64_t polls = 0;   // source reads, all sources together
  double cpu_fraction_of_one_core() const {
    return wall_ns > 0 ? static_cast<double>(thread_cpu_ns) / static_cast<double>(wall_ns) : 0.0;
  }
};

// Energy seen so far on one energy channel, for status lines.
struct LiveChannel {
  std::string channel_id;
  bool top_level = true;
  double energy_j = 0.0;  // since the first reading
  TimeNs last_t_ns = 0;
};

class Sampler {
 public:
  Sampler(std::vector<std::unique_ptr<Source>> sources, SamplerOptions options);
  ~Sampler();
  Sampler(const Sampler&) = delete;
  Sampler& operator=(const Sampler&) = delete;

  // Starts the thread; returns once every source has been read once.
  void start();
  // Reads every source a last time and joins the thread. Safe to call twice.
  void stop();

  // Thread-safe while running.
  std::vector<LiveChannel> live() const;
  // Thread-safe while running: has every source read now, on the sampling thread, and returns
  // the time of those readings once they are stored, so that a measurement window can begin and
  // end on fresh readings instead of interpolating across a poll period. Returns 0 when not
  // running.
  TimeNs sync();
  // Thread-safe while running: a copy of every channel's samples taken at or after since_ns
  // (with the last sample before it, so energy over [since_ns, now] can be interpolated).
  std::vector<Series> recent(TimeNs since_ns) const;

  // After stop(). The polling period each source got.
  const std::vector<std::unique_ptr<Source>>& sources() const { return sources_; }
  TimeNs period_ns(std::size_t source) const { return periods_ns_[source]; }
  std::vector<Series> take_series();
  const std::vector<std::string>& warnings() const { return warnings_; }
  const SamplerStats& stats() const { return stats_; }
  bool memory_limit_reached() const { return capped_; }

 private:
  struct ChannelState {
    explicit ChannelState(const Channel& channel) : judge(channel) {}
    ReadingJudge judge;  // plausibility of each reading (sources/plausibility.hpp)
    std::size_t source = 0;
    std::size_t index = 0;  // within the source's channels
    bool in_gap = false;
    TimeNs gap_begin_ns = 0;
    std::string gap_reason;
    bool warned = false;
    bool has_value = false;
    double last_stored = 0.0;
  };

  void run();
  // Series for the channels a source added since it was last polled (Source::channels grows).
  void add_new_channels(std::size_t source);
  void poll(std::size_t source, TimeNs now);
  void record(ChannelState& state, Series& series, const Reading& reading, std::string_view error);
  void fail(ChannelState& state, Series& series, TimeNs t_ns, std::string reason);
  void hit_memory_limit(TimeNs t_ns);

  std::vector<std::unique_ptr<Source>> sources_;
  SamplerOptions options_;
  std::vector<TimeNs> periods_ns_;
  std::vector<std::vector<Reading>> buffers_;          // one per source, reused every poll
  std::vector<std::vector<std::size_t>> channels_of_;  // source -> indices into series_
  std::vector<Series> series_;
  std::vector<ChannelState> states_;
  std::vector<std::string> warnings_;
  std::size_t samples_ = 0;
  bool capped_ = false;
  TimeNs origin_ns_ = 0;
  SamplerStats stats_;

  WakeSignal wake_;  // the sampling thread sleeps on it
  std::atomic<bool> stop_requested_{false};
  std::atomic<std::uint64_t> sync_requested_{0};  // generations of sync() requests
  std::uint64_t sync_served_ = 0;                 // the sampling thread's own copy of sync_done_

  mutable std::mutex mutex_;  // guards live_, the series' appends, first_poll_done_, sync_done_
  std::condition_variable answered_;  // the sampling thread to start() and sync() callers
  std::vector<LiveChannel> live_;
  bool first_poll_done_ = false;
  std::uint64_t sync_done_ = 0;
  TimeNs sync_t_ns_ = 0;
  std::thread thread_;
};

}  // namespace jouleprof
