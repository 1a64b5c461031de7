// The observed processes' shares of each energy channel (jouleprof/process_share.hpp).
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <map>

#include "core/gap_overlap.hpp"
#include "jouleprof/device_names.hpp"
#include "jouleprof/process_share.hpp"

namespace jouleprof {
namespace {

// How long the share of the first or last activity interval may stand in before or after it.
constexpr TimeNs kMaxHeldShareNs = kNsPerS;

bool is_role(const Channel& c, std::string_view domain) {
  return c.kind == ChannelKind::kBusyTime && c.domain == domain;
}

std::string percent(double fraction) { return fmt::format("{:.0f} %", 100.0 * fraction); }

struct Interval {
  TimeNs begin_ns = 0;
  TimeNs end_ns = 0;
  double observed_s = 0.0;
  double busy_s = 0.0;
  bool held = false;  // an edge that takes its neighbour's share (its deltas are the neighbour's)
};

double delta(const Series& s, TimeNs a, TimeNs b) { return s.value_at(b) - s.value_at(a); }

// The activity readings' intervals inside [begin, end]. An interval with observed work but no
// busy time yet (the two counts tick at slightly different moments) joins the next one, so that
// its work is shared rather than lost or given a share above 1. Intervals in a gap of either
// series are returned in `unknown`. Before the first and after the last reading, the nearest
// interval's share holds for up to kMaxHeldShareNs (a GPU's samples arrive late: the newest one
// is older than the run's end); beyond that the share is unknown.
void activity_intervals(const Series& observed, const Series& busy, TimeNs begin, TimeNs end,
                        std::vector<Interval>& known, std::vector<Interval>& unknown) {
  const TimeNs covered_begin = std::max({begin, observed.begin_ns(), busy.begin_ns()});
  const TimeNs covered_end = std::min({end, observed.end_ns(), busy.end_ns()});
  if (observed.empty() || busy.empty() || covered_end <= covered_begin) {
    unknown.push_back({begin, end, 0.0, 0.0});
    return;
  }
  std::vector<TimeNs> cuts{covered_begin};
  for (std::size_t i = observed.lower_bound(covered_begin); i < observed.size(); ++i) {
    if (observed[i].t_ns >= covered_end) break;
    if (observed[i].t_ns > cuts.back()) cuts.push_back(observed[i].t_ns);
  }
  cuts.push_back(covered_end);
  TimeNs pending_begin = -1;
  for (std::size_t k = 0; k + 1 < cuts.size(); ++k) {
    const TimeNs a = pending_begin >= 0 ? pending_begin : cuts[k];
    const TimeNs b = cuts[k + 1];
    if (has_gap_in(observed, cuts[k], b) || has_gap_in(busy, cuts[k], b)) {
      if (pending_begin >= 0) known.push_back({a, cuts[k], delta(observed, a, cuts[k]), 0.0});
      pending_begin = -1;
      unknown.push_back({cuts[k], b, 0.0, 0.0});
      continue;
    }
    Interval iv{a, b, delta(observed, a, b), delta(busy, a, b)};
    if (iv.observed_s > 0.0 && iv.busy_s <= 0.0 && k + 2 < cuts.size()) {
      pending_begin = a;
      continue;
    }
    pending_begin = -1;
    known.push_back(iv);
  }
  const bool any_known = !known.empty();
  const Interval first = any_known ? known.front() : Interval{};
  const Interval last = any_known ? known.back() : Interval{};
  const auto edge = [&](TimeNs a, TimeNs b, const Interval& nearest) {
    if (b <= a) return;
    if (any_known && b - a <= kMaxHeldShareNs) {
      known.push_back({a, b, nearest.observed_s, nearest.busy_s, true});
    } else {
      unknown.push_back({a, b, 0.0, 0.0});
    }
  };
  edge(begin, covered_begin, first);
  edge(covered_end, end, last);
}

struct ChannelShare {
  double energy_j = 0.0;
  double process_j = 0.0;
  double process_dynamic_j = 0.0;
  double observed_s = 0.0;
  double busy_s = 0.0;
  double unknown_j = 0.0;
  double unknown_s = 0.0;
};

ChannelShare share_channel(const Series& energy, const Series& observed, const Series& busy,
                           TimeNs begin, TimeNs end, std::optional<double> idle_power_w,
                           StaticShare rule) {
  std::vector<Interval> known;
  std::vector<Interval> unknown;
  activity_intervals(observed, busy, begin, end, known, unknown);
  ChannelShare out;
  for (const Interval& iv : known) {
    const double e = energy.energy_between_j(iv.begin_ns, iv.end_ns);
    const double s = idle_power_w.value_or(0.0) * ns_to_s(iv.end_ns - iv.begin_ns);
    double share = 0.0;
    if (iv.busy_s > 0.0) {
      share = std::max(0.0, iv.observed_s / iv.busy_s);
    } else if (iv.observed_s > 0.0) {
      share = 1.0;  // the last interval: nothing to join it to
    }
    out.energy_j += e;
    out.process_j += interval_process_energy_j(e, s, share, rule);
    out.process_dynamic_j += share * (e - s);
    if (iv.held) continue;
    out.observed_s += std::max(0.0, iv.observed_s);
    out.busy_s += std::max(0.0, iv.busy_s);
  }
  for (const Interval& iv : unknown) {
    out.unknown_j += energy.energy_between_j(iv.begin_ns, iv.end_ns);
    out.unknown_s += ns_to_s(iv.end_ns - iv.begin_ns);
  }
  return out;
}

// busy / (busy + idle) of a device over a window; nullopt without readings there.
std::optional<double> utilisation(const Series& busy, const Series& idle, TimeNs a, TimeNs b) {
  a = std::max({a, busy.begin_ns(), idle.begin_ns()});
  b = std::min({b, busy.end_ns(), idle.end_ns()});
  if (b <= a) return std::nullopt;
  const double busy_s = delta(busy, a, b);
  const double idle_s = delta(idle, a, b);
  if (busy_s + idle_s <= 0.0) return std::nullopt;
  return busy_s / (busy_s + idle_s);
}

}  // namespace

bool is_observed_activity(const Channel& c) {
  return c.kind == ChannelKind::kBusyTime && c.domain != "busy" && c.domain != "idle" &&
         c.domain != "thread";
}

std::optional<DeviceActivity> find_device_activity(const std::vector<Channel>& channels,
                                                   std::string_view energy_device) {
  const auto on = [&](std::string_view device) -> std::optional<DeviceActivity> {
    DeviceActivity found;
    bool observed = false;
    bool busy = false;
    for (std::size_t i = 0; i < channels.size(); ++i) {
      const Channel& c = channels[i];
      if (c.device != device || c.kind != ChannelKind::kBusyTime) continue;
      if (is_observed_activity(c)) {
        found.observed = i;
        found.rule = c.domain;
        observed = true;
      } else if (is_role(c, "busy")) {
        found.busy = i;
        busy = true;
      } else if (is_role(c, "idle")) {
        found.idle = i;
      }
    }
    if (!observed || !busy) return std::nullopt;
    return found;
  };
  if (std::optional<DeviceActivity> own = on(energy_device)) return own;
  if (device_selects(kWholeCpuDevice, energy_device) || energy_device == "platform")
    return on(kWholeCpuDevice);
  return std::nullopt;
}

double interval_process_energy_j(double energy_j, double static_j, double share, StaticShare rule) {
  const double dynamic_j = energy_j - static_j;
  switch (rule) {
    case StaticShare::kCpuTime:
      return share * energy_j;
    case StaticShare::kNone:
      return share * dynamic_j;
    case StaticShare::kAll:
      return share * dynamic_j + static_j;
  }
  return share * energy_j;
}

Status attribute_process_shares(Profile& profile, const ProcessShareOptions& options) {
  std::vector<Channel> channels;
  channels.reserve(profile.series.size());
  for (const Series& s : profile.series) channels.push_back(s.channel());
  if (std::none_of(channels.begin(), channels.end(), is_observed_activity)) return Status::Ok();

  const TimeNs begin = options.window_begin_ns.value_or(profile.meta.begin_ns);
  const TimeNs end = options.window_end_ns.value_or(profile.meta.end_ns);
  if (end <= begin) {
    return invalid_input("profile", "process share window", fmt::format("[{}, {}]", begin, end),
                         "empty: there is nothing to share");
  }
  const std::optional<TimeNs> idle_begin = profile.meta.options.idle.begin_ns;
  const std::optional<TimeNs> idle_end = profile.meta.options.idle.end_ns;

  std::map<std::string, double> others_by_device;  // device -> other processes' share
  std::vector<std::string> without_rule;
  std::vector<std::string> without_baseline;
  std::vector<std::string> unknown_notes;
  for (ChannelSummary& summary : profile.channels) {
    const Series* energy = profile.find_series(summary.channel_id);
    if (energy == nullptr || !energy->channel().carries_energy()) continue;
    const Channel& channel = energy->channel();
    const std::optional<DeviceActivity> activity = find_device_activity(channels, channel.device);
    if (!activity) {
      if (channel.is_top_level()) without_rule.push_back(channel.id);
      continue;
    }
    std::optional<double> idle_power_w = summary.idle_power_w;
    if (!idle_power_w) idle_power_w = channel.static_power_w;
    if (!idle_power_w && options.static_share != StaticShare::kCpuTime) {
      without_baseline.push_back(channel.id);
      continue;
    }
    const Series& observed = profile.series[activity->observed];
    const Series& busy = profile.series[activity->busy];
    const ChannelShare share =
        share_channel(*energy, observed, busy, begin, end, idle_power_w, options.static_share);
    if (share.unknown_s > 0.0) {
      unknown_notes.push_back(fmt::format(
          "{}: the observed processes' share is unknown for {:.2f} s ({:.3g} J: {} could not be "
          "read there), left out of its process figure",
          channel.id, share.unknown_s, share.unknown_j, observed.channel().id));
    }
    ProcessFigures figures;
    figures.rule = activity->rule;
    // Rounding of tick counts can push a sole user's share a hair above 1.
    figures.energy_j =
        share.energy_j > 0.0 ? std::min(share.process_j, share.energy_j) : share.process_j;
    if (idle_power_w) figures.dynamic_energy_j = share.process_dynamic_j;
    if (summary.energy_j > 0.0) figures.share = figures.energy_j / summary.energy_j;
    if (share.busy_s > 0.0) {
      figures.others_activity_share = std::max(0.0, 1.0 - share.observed_s / share.busy_s);
      others_by_device[busy.channel().device] = *figures.others_activity_share;
    }
    summary.process = std::move(figures);
  }

  profile.meta.options.process.static_share = options.static_share;
  if (!options.add_warnings) return Status::Ok();

  std::string crowded;
  for (const auto& [device, others] : others_by_device) {
    if (others <= options.others_warning_share) continue;
    crowded += fmt::format("{}{} {}", crowded.empty() ? "" : ", ", device, percent(others));
  }
  if (!crowded.empty()) {
    profile.warnings.push_back(fmt::format(
        "other processes did more than {} of the work during the run ({}): energy_j is the "
        "machine's and counts their energy too; process_energy_j is the observed processes' "
        "share (attributed, docs/sharing.md)",
        percent(options.others_warning_share), crowded));
  }

  if (idle_begin && idle_end && *idle_end > *idle_begin) {
    std::string busy_devices;
    std::map<std::string, bool> seen;
    for (std::size_t i = 0; i < channels.size(); ++i) {
      if (!is_role(channels[i], "busy") || seen[channels[i].device]) continue;
      seen[channels[i].device] = true;
      for (std::size_t j = 0; j < channels.size(); ++j) {
        if (!is_role(channels[j], "idle") || channels[j].device != channels[i].device) continue;
        const std::optional<double> u =
            utilisation(profile.series[i], profile.series[j], *idle_begin, *idle_end);
        if (u && *u > options.idle_window_max_busy) {
          busy_devices += fmt::format("{}{} {} busy", busy_devices.empty() ? "" : ", ",
                                      channels[i].device, percent(*u));
        }
      }
    }
    if (!busy_devices.empty()) {
      profile.warnings.push_back(fmt::format(
          "the idle baseline was not idle ({}; an idle machine is below {}): idle_power_w "
          "includes that work, so the net figures are unreliable",
          busy_devices, percent(options.idle_window_max_busy)));
    }
  }

  if (!without_rule.empty()) {
    std::string list;
    for (const std::string& id : without_rule) list += (list.empty() ? "" : ", ") + id;
    const bool one = without_rule.size() == 1;
    profile.warnings.push_back(fmt::format(
        "{}: no per-process rule applies to {} device (no activity is read there), so {} "
        "energy_j is shared with processes outside the observed set and no process_energy_j is "
        "given",
        list, one ? "its" : "their", one ? "its" : "their"));
  }
  if (!without_baseline.empty()) {
    std::string list;
    for (const std::string& id : without_baseline) list += (list.empty() ? "" : ", ") + id;
    profile.warnings.push_back(fmt::format(
        "static share '{}' needs the idle power of {}, and none was measured: no process figure "
        "for {}",
        to_string(options.static_share), list, without_baseline.size() == 1 ? "it" : "them"));
  }
  for (std::string& note : unknown_notes) profile.warnings.push_back(std::move(note));
  return Status::Ok();
}

}  // namespace jouleprof
