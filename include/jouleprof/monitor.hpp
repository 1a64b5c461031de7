// Monitor: measure energy around any piece of work, from a library.
//
//   MonitorOptions options;                         // default sources; options.sources.selected
//   JP_TRY(auto monitor, Monitor::open(options));   // error when no source is available
//   JP_RETURN_IF_ERROR(monitor->start());           // sampling thread running, first reads taken
//   … optional: sleep, then monitor->set_idle_window(begin, end) for a baseline …
//   monitor->set_run_begin(monotonic_now_ns());
//   … the work …
//   Profile profile = monitor->stop();              // series, channel summaries, warnings
//
// Observed processes (options.sources.observed, docs/sharing.md): the profile's channels then
// also carry the observed processes' attributed share (ChannelSummary::process).
//
// Lifecycle: open (discover sources) → start → stop, once. The profile's run window is
// [run begin (default: start), stop]; samples before it (the idle baseline) stay in the series.
// The sampler's own cost is in profile.meta.options ("sampler.thread_cpu_ns", "sampler.wall_ns",
// "sampler.cpu_percent_of_one_core").
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "jouleprof/channel_summary.hpp"
#include "jouleprof/clock.hpp"
#include "jouleprof/process_share.hpp"
#include "jouleprof/profile.hpp"
#include "jouleprof/result.hpp"
#include "jouleprof/sources.hpp"

namespace jouleprof {

class Sampler;

struct MonitorOptions {
  SourceOptions sources;
  TimeNs interval_ns = 0;  // 0: each source's default period (RAPL 10 ms, NVML 20 ms, hwmon 100 ms)
  std::size_t memory_limit_bytes = std::size_t{1} << 30;  // over all series; 16 B per sample
  TimeNs peak_window_ns = kDefaultPeakWindowNs;
  // With sources.observed set: how the observed processes' shares are figured at stop().
  ProcessShareOptions process_shares;
};

// A status-line snapshot.
struct LiveStatus {
  TimeNs elapsed_ns = 0;  // since the run began
  double energy_j = 0.0;  // top-level energy channels, since sampling started
};

class Monitor {
 public:
  // Discovers the sources; fails when none is available (the message lists why each is not).
  static Result<std::unique_ptr<Monitor>> open(const MonitorOptions& options);
  // Measures with sources the caller made (an external meter, a test double); options.sources is
  // not consulted.
  static std::unique_ptr<Monitor> from_sources(std::vector<std::unique_ptr<Source>> sources,
                                               const MonitorOptions& options);
  ~Monitor();
  Monitor(const Monitor&) = delete;
  Monitor& operator=(const Monitor&) = delete;

  const std::vector<UnavailableSource>& unavailable() const { return unavailable_; }
  const std::vector<std::string>& notes() const { return notes_; }
  std::vector<Channel> channels() const;
  // The processes this monitor observes (options.sources.observed); null when none.
  const std::shared_ptr<ObservedProcesses>& observed() const { return options_.sources.observed; }

  Status start();
  void set_idle_window(TimeNs begin_ns, TimeNs end_ns) { idle_ = IdleWindow{begin_ns, end_ns}; }
  void set_run_begin(TimeNs t_ns) { run_begin_ns_ = t_ns; }
  LiveStatus live() const;
  // While sampling: reads every source now and returns the readings' time (see Sampler::sync).
  TimeNs sync();
  // While sampling: each channel's samples since since_ns (see Sampler::recent).
  std::vector<Series> recent(TimeNs since_ns) const;
  // Stops sampling and builds the profile (kind "run"; the caller adds command and exit code).
  Profile stop();

 private:
  Monitor(MonitorOptions options, SourceDiscovery discovery);

  MonitorOptions options_;
  std::vector<UnavailableSource> unavailable_;
  std::vector<std::string> notes_;
  std::vector<std::string> source_names_;
  std::unique_ptr<Sampler> sampler_;
  ClockAnchor anchor_;
  TimeNs run_begin_ns_ = 0;
  std::optional<IdleWindow> idle_;
  bool started_ = false;
  bool stopped_ = false;
};

}  // namespace jouleprof
