#include "jouleprof/monitor.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <optional>

#include "sampling/sampler.hpp"

namespace jouleprof {
namespace {

// How many missed nominal updates make a still counter suspicious.
constexpr TimeNs kFrozenCounterUpdates = 10;

std::string host_name() {
  char name[256] = {};
  if (gethostname(name, sizeof(name) - 1) != 0) return "unknown";
  return name;
}

// A counter that never changed although it should have updated many times over the run: common
// in virtual machines that expose RAPL but do not count. Its 0 J is reported, and flagged.
std::optional<std::string> frozen_counter_warning(const Series& s) {
  const Channel& c = s.channel();
  if (c.kind != ChannelKind::kEnergyCounter || s.size() < 2) return std::nullopt;
  const TimeNs span = s.end_ns() - s.begin_ns();
  const TimeNs expected_update = c.nominal_period_ns > 0 ? c.nominal_period_ns : kNsPerS;
  if (span < kFrozenCounterUpdates * expected_update || !s.update_indices().empty())
    return std::nullopt;
  return fmt::format(
      "{} did not change in {} readings over {:.2f} s although it should update every {:.3g} ms: "
      "it "
      "may not count on this machine (virtual machines often expose counters that stay put), so "
      "its energy reads 0 J; `jouleprof sensors` shows which sources count",
      c.id, s.size(), ns_to_s(span), ns_to_s(expected_update) * 1e3);
}

}  // namespace

Result<std::unique_ptr<Monitor>> Monitor::open(const MonitorOptions& options) {
  JP_TRY(SourceDiscovery discovery, discover_sources(options.sources));
  const bool any_energy =
      std::any_of(discovery.available.begin(), discovery.available.end(), [](const auto& source) {
        return std::any_of(source->channels().begin(), source->channels().end(),
                           [](const Channel& c) { return c.carries_energy(); });
      });
  if (!any_energy) {
    std::string why;
    for (const UnavailableSource& u : discovery.unavailable) {
      why += fmt::format("; {}: {}", u.name, u.availability.reason);
      if (!u.availability.fix.empty()) why += fmt::format(" ({})", u.availability.fix);
    }
    return Error(ErrorCode::kUnavailable,
                 fmt::format("no energy source is available{} (try the simulated source with "
                             "setting simulate.watts, or the CPU estimate with setting "
                             "estimate.tdp_w)",
                             why));
  }
  return std::unique_ptr<Monitor>(new Monitor(options, std::move(discovery)));
}

std::unique_ptr<Monitor> Monitor::from_sources(std::vector<std::unique_ptr<Source>> sources,
                                               const MonitorOptions& options) {
  SourceDiscovery discovery;
  discovery.available = std::move(sources);
  return std::unique_ptr<Monitor>(new Monitor(options, std::move(discovery)));
}

Monitor::Monitor(MonitorOptions options, SourceDiscovery discovery)
    : options_(std::move(options)),
      unavailable_(std::move(discovery.unavailable)),
      notes_(std::move(discovery.notes)) {
  for (const auto& source : discovery.available) {
    source_names_.emplace_back(source->name());
    // An available source may still say something about what it could not do (a GPU left out,
    // a GPU whose energy has no per-process rule).
    const Availability availability = source->availability();
    if (!availability.reason.empty())
      notes_.push_back(fmt::format("{}: {}", source->name(), availability.reason));
  }
  sampler_ =
      std::make_unique<Sampler>(std::move(discovery.available),
                                SamplerOptions{options_.interval_ns, options_.memory_limit_bytes});
}

Monitor::~Monitor() = default;

std::vector<Channel> Monitor::channels() const {
  std::vector<Channel> all;
  for (const auto& source : sampler_->sources()) {
    all.insert(all.end(), source->channels().begin(), source->channels().end());
  }
  return all;
}

Status Monitor::start() {
  if (started_) return Error(ErrorCode::kInternal, "Monitor::start called twice");
  started_ = true;
  anchor_ = ClockAnchor::capture();
  sampler_->start();
  run_begin_ns_ = monotonic_now_ns();
  return Status::Ok();
}

LiveStatus Monitor::live() const {
  LiveStatus status;
  status.elapsed_ns = monotonic_now_ns() - run_begin_ns_;
  for (const LiveChannel& c : sampler_->live()) {
    if (c.top_level) status.energy_j += c.energy_j;
  }
  return status;
}

TimeNs Monitor::sync() { return sampler_->sync(); }

std::vector<Series> Monitor::recent(TimeNs since_ns) const { return sampler_->recent(since_ns); }

Profile Monitor::stop() {
  Profile profile;
  if (!started_ || stopped_) return profile;
  stopped_ = true;
  const TimeNs end_ns = monotonic_now_ns();
  sampler_->stop();

  RunMetadata& meta = profile.meta;
  meta.tool_version = JOULEPROF_VERSION;
  meta.kind = "run";
  meta.host = host_name();
  meta.anchor = anchor_;
  meta.begin_ns = run_begin_ns_;
  meta.end_ns = end_ns;
  meta.partial = sampler_->memory_limit_reached();

  RecordedOptions::Sampler& recorded = meta.options.sampler;
  for (std::size_t s = 0; s < source_names_.size(); ++s)
    recorded.period_ns[source_names_[s]] = sampler_->period_ns(s);
  meta.options.sources.names = source_names_;
  for (const UnavailableSource& u : unavailable_)
    meta.options.sources.unavailable[u.name] = u.availability.reason;
  const SamplerStats& stats = sampler_->stats();
  recorded.thread_cpu_ns = stats.thread_cpu_ns;
  recorded.wall_ns = stats.wall_ns;
  recorded.polls = stats.polls;
  recorded.cpu_percent_of_one_core = 100.0 * stats.cpu_fraction_of_one_core();
  recorded.memory_limit_bytes = options_.memory_limit_bytes;
  if (idle_) {
    meta.options.idle.begin_ns = idle_->begin_ns;
    meta.options.idle.end_ns = idle_->end_ns;
  }

  profile.series = sampler_->take_series();
  for (const Series& s : profile.series) {
    if (!s.channel().carries_energy()) continue;
    profile.channels.push_back(
        summarize_channel(s, meta.begin_ns, meta.end_ns, idle_, options_.peak_window_ns));
  }
  if (options_.sources.observed) {
    meta.options.process.observed = options_.sources.observed->describe();
    const Status shared = attribute_process_shares(profile, options_.process_shares);
    if (!shared) {
      profile.warnings.push_back("no process figures: " + shared.error().message());
    }
  }
  profile.warnings.insert(profile.warnings.begin(), notes_.begin(), notes_.end());
  profile.warnings.insert(profile.warnings.end(), sampler_->warnings().begin(),
                          sampler_->warnings().end());
  for (const Series& s : profile.series) {
    if (const std::optional<std::string> w = frozen_counter_warning(s))
      profile.warnings.push_back(*w);
  }
  return profile;
}

}  // namespace jouleprof
