#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "jouleprof/exporter.hpp"
#include "jouleprof/process_share.hpp"

namespace jouleprof {

struct EnergyPoller::State {
  State(SourceDiscovery sources, EnergyPollerOptions options);
  void run();
  void poll_once();
  void share_process_energy();

  struct ChannelState {
    std::size_t source = 0;
    std::size_t index = 0;
    bool has_previous = false;
    TimeNs previous_t_ns = 0;
    double previous_value = 0.0;
    std::uint64_t resets = 0;
    double delta = 0.0;  // what this poll added: joules, or busy seconds
  };
  // An energy channel with per-process activity: the activity channels' states, and work seen
  // before the device's busy time caught up (shared at the next poll, as the attributor does).
  struct ShareState {
    std::size_t energy = 0;
    std::size_t observed = 0;
    std::size_t busy = 0;
    double pending_energy_j = 0.0;
    double pending_observed_s = 0.0;
  };

  std::vector<std::unique_ptr<Source>> sources_;
  std::vector<UnavailableSource> unavailable_;
  std::vector<std::vector<Reading>> buffers_;
  std::vector<ChannelState> states_;
  std::vector<ShareState> shares_;  // parallel to snapshot_.process_shares
  TimeNs interval_ns_ = 0;

  mutable std::mutex mutex_;  // guards snapshot_, stop_requested_
  ExporterSnapshot snapshot_;
  std::condition_variable wake_;
  bool stop_requested_ = false;
  std::thread thread_;
};

EnergyPoller::State::State(SourceDiscovery sources, EnergyPollerOptions options)
    : sources_(std::move(sources.available)), unavailable_(std::move(sources.unavailable)) {
  TimeNs shortest = 0;
  for (std::size_t s = 0; s < sources_.size(); ++s) {
    const Source& source = *sources_[s];
    buffers_.emplace_back(source.channels().size());
    const TimeNs period = source.default_period_ns();
    if (period > 0) shortest = shortest == 0 ? period : std::min(shortest, period);
    for (std::size_t c = 0; c < source.channels().size(); ++c) {
      states_.push_back(ChannelState{s, c});
      snapshot_.channels.push_back(
          ExportedChannel{source.channels()[c], 0.0, std::nullopt, std::nullopt});
    }
    snapshot_.sources.push_back(
        SourceHealth{std::string(source.name()), false, "not read yet", ""});
  }
  for (const UnavailableSource& u : unavailable_) {
    snapshot_.sources.push_back(
        SourceHealth{u.name, false, u.availability.reason, u.availability.fix});
  }
  interval_ns_ =
      options.interval_ns > 0 ? options.interval_ns : std::max(shortest, kMinExporterPollNs);
  if (sources.observed) snapshot_.observed = sources.observed->describe();
  std::vector<Channel> channels;
  for (const ExportedChannel& c : snapshot_.channels) channels.push_back(c.channel);
  for (std::size_t i = 0; i < states_.size(); ++i) {
    if (!channels[i].carries_energy()) continue;
    if (const std::optional<DeviceActivity> activity =
            find_device_activity(channels, channels[i].device)) {
      shares_.push_back(ShareState{i, activity->observed, activity->busy, 0.0, 0.0});
      snapshot_.process_shares.push_back(
          ExportedProcessShare{i, 0.0, std::nullopt, activity->rule});
    }
  }
}

EnergyPoller::EnergyPoller(SourceDiscovery sources, EnergyPollerOptions options)
    : state_(std::make_unique<State>(std::move(sources), options)) {}

EnergyPoller::~EnergyPoller() { stop(); }

void EnergyPoller::start() {
  state_->poll_once();
  state_->thread_ = std::thread([state = state_.get()] { state->run(); });
}

void EnergyPoller::stop() {
  {
    std::lock_guard lock(state_->mutex_);
    state_->stop_requested_ = true;
  }
  state_->wake_.notify_all();
  if (state_->thread_.joinable()) state_->thread_.join();
}

void EnergyPoller::poll_once() { state_->poll_once(); }

TimeNs EnergyPoller::interval_ns() const { return state_->interval_ns_; }

void EnergyPoller::State::run() {
  std::unique_lock lock(mutex_);
  while (!wake_.wait_for(lock, std::chrono::nanoseconds(interval_ns_),
                         [this] { return stop_requested_; })) {
    lock.unlock();
    poll_once();
    lock.lock();
  }
}

void EnergyPoller::State::poll_once() {
  for (std::size_t s = 0; s < sources_.size(); ++s) sources_[s]->read(buffers_[s]);
  std::lock_guard lock(mutex_);
  std::vector<std::string> failures(sources_.size());
  for (std::size_t i = 0; i < states_.size(); ++i) {
    ChannelState& st = states_[i];
    ExportedChannel& out = snapshot_.channels[i];
    const Reading& r = buffers_[st.source][st.index];
    if (!r.ok) {
      const std::string why = sources_[st.source]->read_error(st.index);
      if (failures[st.source].empty())
        failures[st.source] = out.channel.id + ": " + (why.empty() ? "read failed" : why);
      continue;
    }
    if (!std::isfinite(r.value)) {
      if (failures[st.source].empty())
        failures[st.source] = out.channel.id + ": non-finite reading";
      continue;
    }
    const double dt_s = st.has_previous ? ns_to_s(r.t_ns - st.previous_t_ns) : 0.0;
    st.delta = 0.0;
    switch (out.channel.kind) {
      case ChannelKind::kEnergyCounter:
        if (st.has_previous && r.value < st.previous_value) {
          ++st.resets;  // the counter restarted: this interval adds nothing, later ones continue
        } else if (st.has_previous && dt_s > 0.0) {
          st.delta = r.value - st.previous_value;
          out.energy_j += st.delta;
          out.power_w = st.delta / dt_s;
        }
        break;
      case ChannelKind::kPower:
        if (st.has_previous && dt_s > 0.0) {
          st.delta = 0.5 * (st.previous_value + r.value) * dt_s;
          out.energy_j += st.delta;
        }
        out.power_w = r.value;
        break;
      case ChannelKind::kTemperature:
      case ChannelKind::kUtilisation:
        out.value = r.value;
        break;
      case ChannelKind::kBusyTime:
        if (st.has_previous) st.delta = std::max(0.0, r.value - st.previous_value);
        out.value = out.value.value_or(0.0) + st.delta;
        break;
    }
    st.has_previous = true;
    st.previous_t_ns = r.t_ns;
    st.previous_value = r.value;
  }
  share_process_energy();
  for (std::size_t s = 0; s < sources_.size(); ++s) {
    SourceHealth& h = snapshot_.sources[s];
    const Availability a = sources_[s]->availability();
    std::uint64_t resets = 0;
    for (const ChannelState& st : states_) {
      if (st.source == s) resets += st.resets;
    }
    h.up = a.available && failures[s].empty();
    h.reason = !a.available ? a.reason : failures[s];
    h.fix = !a.available ? a.fix : "";
    if (h.up && resets > 0)
      h.reason = fmt::format("{} counter reset(s) seen; their intervals added nothing", resets);
  }
}

// The attributor's rule per poll interval (jouleprof/process_share.hpp): the static part goes by
// CPU time, which needs no idle baseline (a daemon has none).
void EnergyPoller::State::share_process_energy() {
  for (std::size_t k = 0; k < shares_.size(); ++k) {
    ShareState& st = shares_[k];
    const double observed_s = states_[st.observed].delta + st.pending_observed_s;
    const double busy_s = states_[st.busy].delta;
    const double energy_j = states_[st.energy].delta + st.pending_energy_j;
    if (observed_s > 0.0 && busy_s <= 0.0) {
      st.pending_observed_s = observed_s;
      st.pending_energy_j = energy_j;
      continue;
    }
    st.pending_observed_s = st.pending_energy_j = 0.0;
    const double share = busy_s > 0.0 ? std::min(1.0, observed_s / busy_s) : 0.0;
    ExportedProcessShare& out = snapshot_.process_shares[k];
    out.energy_j += interval_process_energy_j(energy_j, 0.0, share, StaticShare::kCpuTime);
    out.share = share;
  }
}

ExporterSnapshot EnergyPoller::snapshot() const {
  std::lock_guard lock(state_->mutex_);
  return state_->snapshot_;
}

}  // namespace jouleprof
