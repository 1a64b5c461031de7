#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <map>
#include <set>

#include "core/quantity_text.hpp"
#include "export/rank_shares.hpp"
#include "jouleprof/cluster.hpp"
#include "jouleprof/history.hpp"

namespace jouleprof {
namespace {

constexpr std::string_view kCommunicationNode = "[communication]";
constexpr std::string_view kOtherProcessesNode = "[other processes]";
constexpr std::string_view kUntracedNode = "[ranks without a tree]";

// Least direct wins when ranks disagree: a merged figure is only as direct as its weakest part.
int directness(Provenance p) {
  static constexpr std::array<int, 6> kOrder{0 /*measured*/,  1 /*interpolated*/, 3 /*estimated*/,
                                             4 /*simulated*/, 5 /*predicted*/,    2 /*imported*/};
  return kOrder.at(static_cast<std::size_t>(p));
}

std::map<std::string, double> prefixed(const std::map<std::string, double>& by_channel,
                                       const std::string& prefix) {
  std::map<std::string, double> out;
  for (const auto& [id, j] : by_channel) out[prefix + id] += j;
  return out;
}

ProfileNode relabelled(const ProfileNode& tree, const std::string& prefix) {
  ProfileNode out = tree;
  walk_tree(out, [&](ProfileNode& n, int) {
    n.energy_stats.reset();
    n.energy_by_channel_j = prefixed(n.energy_by_channel_j, prefix);
  });
  return out;
}

// A rank's tree brought to its share of the host (export/rank_shares.hpp): every energy figure
// times `factor`; times and calls stay.
void scale_energies(ProfileNode& tree, double factor) {
  walk_tree(tree, [&](ProfileNode& n, int) {
    n.energy_j *= factor;
    n.self_energy_j *= factor;
    if (n.static_energy_j) *n.static_energy_j *= factor;
    if (n.dynamic_energy_j) *n.dynamic_energy_j *= factor;
    if (n.band) {
      n.band->low_j *= factor;
      n.band->high_j *= factor;
    }
    for (auto& [id, j] : n.energy_by_channel_j) j *= factor;
  });
}

// A rank's steps and the part of them spent in collectives: each step node's [communication]
// child (the collectives of its spans, attribution/profile_tree.cpp).
struct StepCommunication {
  std::uint64_t steps = 0;
  double step_time_s = 0.0;
  double communication_time_s = 0.0;
  double communication_energy_j = 0.0;
};

StepCommunication step_communication(const ProfileNode& tree) {
  StepCommunication figures;
  walk_tree(tree, [&](const ProfileNode& n, int) {
    if (n.category != SpanCategory::kStep) return true;
    figures.steps += n.calls;
    figures.step_time_s += static_cast<double>(n.time_ns) * 1e-9;
    if (const ProfileNode* c = n.child(kCommunicationNode)) {
      figures.communication_time_s += static_cast<double>(c->time_ns) * 1e-9;
      figures.communication_energy_j += c->energy_j;
    }
    return false;  // steps do not nest
  });
  return figures;
}

void add_figures(ProfileNode& into, const ProfileNode& from, const std::string& prefix,
                 const std::string& path, std::set<std::string>& mixed) {
  // Different ranks measure different devices: their intervals are independent.
  into.band = into.band && from.band ? std::optional<EnergyBand>(add_independent_bands(
                                           into.energy_j, *into.band, from.energy_j, *from.band))
                                     : std::nullopt;
  into.energy_j += from.energy_j;
  into.self_energy_j += from.self_energy_j;
  into.time_ns += from.time_ns;
  into.self_time_ns += from.self_time_ns;
  into.calls += from.calls;
  if (into.static_energy_j && from.static_energy_j && into.dynamic_energy_j &&
      from.dynamic_energy_j) {
    *into.static_energy_j += *from.static_energy_j;
    *into.dynamic_energy_j += *from.dynamic_energy_j;
  } else {
    into.static_energy_j.reset();
    into.dynamic_energy_j.reset();
  }
  if (into.provenance != from.provenance) {
    mixed.insert(path);
    if (directness(from.provenance) > directness(into.provenance))
      into.provenance = from.provenance;
  }
  into.energy_stats.reset();
  for (const auto& [id, j] : from.energy_by_channel_j) into.energy_by_channel_j[prefix + id] += j;
}

// Adds `from` into `into` node by node (matched by name along the path); a child `into` lacks is
// added as a relabelled copy. Nodes whose provenance differs are listed in `mixed` by path.
void merge_node(ProfileNode& into, const ProfileNode& from, const std::string& prefix,
                const std::string& path, std::set<std::string>& mixed) {
  struct Pending {
    ProfileNode* into;
    const ProfileNode* from;
    std::string path;
  };
  std::vector<Pending> pending{{&into, &from, path}};
  while (!pending.empty()) {
    Pending top = std::move(pending.back());
    pending.pop_back();
    add_figures(*top.into, *top.from, prefix, top.path, mixed);
    // Copies first, pointers after: appending may move the children.
    std::vector<bool> copied(top.from->children.size(), false);
    for (std::size_t i = 0; i < top.from->children.size(); ++i) {
      const ProfileNode& c = top.from->children[i];
      if (top.into->child(c.name) == nullptr) {
        top.into->children.push_back(relabelled(c, prefix));
        copied[i] = true;
      }
    }
    for (std::size_t i = 0; i < top.from->children.size(); ++i) {
      const ProfileNode& c = top.from->children[i];
      if (!copied[i]) pending.push_back({top.into->child(c.name), &c, top.path + "/" + c.name});
    }
  }
}

// A node of energy that belongs to no rank's tree, at the root of the merged one.
void add_remainder_node(ProfileNode& root, std::string_view name, double energy_j) {
  if (energy_j <= 0.0) return;
  ProfileNode node;
  node.name = std::string(name);
  node.energy_j = energy_j;
  node.self_energy_j = energy_j;
  node.provenance = root.provenance;
  root.energy_j += energy_j;
  root.static_energy_j.reset();
  root.dynamic_energy_j.reset();
  root.children.push_back(std::move(node));
}

// A host's boot time on the realtime clock, realtime − monotonic of its anchor: between 1970 and
// 2200, or the anchor is damaged (and an offset from it would date the rank's times anywhere).
constexpr TimeNs kLatestBootNs = 7'258'118'400'000'000'000;  // 2200-01-01

Result<TimeNs> boot_time_ns(const ClockAnchor& anchor, const std::string& origin) {
  TimeNs boot = 0;
  if (__builtin_sub_overflow(anchor.realtime_ns, anchor.monotonic_ns, &boot) || boot < 0 ||
      boot > kLatestBootNs) {
    return invalid_input(
        origin, "meta.anchor",
        fmt::format("realtime_ns {}, monotonic_ns {}", anchor.realtime_ns, anchor.monotonic_ns),
        "puts the host's boot outside 1970–2200: the anchor is damaged");
  }
  return boot;
}

// The offset that moves a time on `p`'s monotonic axis onto `first`'s, through the realtime
// anchors; nullopt where either has none.
Result<std::optional<TimeNs>> clock_offset_ns(const Profile& first, const Profile& p,
                                              const std::string& first_origin,
                                              const std::string& origin) {
  if (first.meta.anchor.realtime_ns == 0 || p.meta.anchor.realtime_ns == 0)
    return std::optional<TimeNs>();
  JP_TRY(const TimeNs first_boot, boot_time_ns(first.meta.anchor, first_origin));
  JP_TRY(const TimeNs boot, boot_time_ns(p.meta.anchor, origin));
  return std::optional<TimeNs>(boot - first_boot);  // both in [0, kLatestBootNs]: no overflow
}

// Every time of `p` moved by `shift` stays a 64-bit nanosecond count: checked at its earliest
// and latest time, so that the merge's additions need no check of their own.
Status check_shift(const Profile& p, TimeNs shift, const std::string& origin) {
  TimeNs earliest = std::min(p.meta.begin_ns, p.meta.end_ns);
  TimeNs latest = std::max(p.meta.begin_ns, p.meta.end_ns);
  const auto include = [&](TimeNs t) {
    earliest = std::min(earliest, t);
    latest = std::max(latest, t);
  };
  for (const Series& s : p.series) {
    if (s.size() > 0) {
      include(s[0].t_ns);
      include(s[s.size() - 1].t_ns);
    }
    for (const Gap& g : s.gaps()) {
      include(g.begin_ns);
      include(g.end_ns);
    }
  }
  if (!p.timeline.spans().empty()) {
    const auto [first, last] = p.timeline.extent();
    include(first);
    include(last);
  }
  for (const Mark& mark : p.timeline.marks()) include(mark.t_ns);
  TimeNs moved = 0;
  if (__builtin_add_overflow(earliest, shift, &moved) ||
      __builtin_add_overflow(latest, shift, &moved)) {
    return invalid_input(origin, "meta.anchor", std::to_string(shift) + " ns",
                         "as the clock offset to the first profile, it moves the profile's times "
                         "beyond what 64 bits of ns can count");
  }
  return Status::Ok();
}

// A rank's run window on the first profile's clock.
struct RankWindow {
  std::string label;
  TimeNs begin_ns = 0;
  TimeNs end_ns = 0;
};

// Ranks of one job run at the same time, under one world size: where the profiles say otherwise,
// they are of different runs, or their hosts' clocks disagree, and the merge says so.
constexpr TimeNs kMaxRankStartSkewNs = 60 * kNsPerS;

template <typename Origin>
void add_job_warnings(const std::vector<Profile>& profiles, const Origin& origin,
                      const std::vector<RankWindow>& windows, std::vector<std::string>& warnings) {
  std::set<int> world_sizes;
  for (std::size_t i = 0; i < profiles.size(); ++i) {
    const RunMetadata& meta = profiles[i].meta;
    if (!meta.world_size) continue;
    world_sizes.insert(*meta.world_size);
    if (meta.rank && *meta.rank >= *meta.world_size) {
      warnings.push_back(fmt::format("{}: rank {} is not below its world size {}", origin(i),
                                     *meta.rank, *meta.world_size));
    }
  }
  if (world_sizes.size() > 1) {
    warnings.push_back(fmt::format(
        "the profiles disagree on the job's world size ({}): they may be of different jobs",
        fmt::join(world_sizes, ", ")));
  } else if (world_sizes.size() == 1 &&
             static_cast<std::size_t>(*world_sizes.begin()) > profiles.size()) {
    warnings.push_back(
        fmt::format("{} of the job's {} ranks merged: the others' energy is not in "
                    "the total",
                    profiles.size(), *world_sizes.begin()));
  }
  for (std::size_t i = 1; i < windows.size(); ++i) {
    const TimeNs skew = windows[i].begin_ns - windows[0].begin_ns;
    const bool apart =
        windows[i].begin_ns >= windows[0].end_ns || windows[0].begin_ns >= windows[i].end_ns;
    if (std::abs(skew) <= kMaxRankStartSkewNs && !apart) continue;
    warnings.push_back(fmt::format(
        "{} begins {} {} {} on the common clock{}: the hosts' clocks disagree (is NTP running?) "
        "or these profiles are of different runs",
        windows[i].label, format_duration(std::abs(skew)), skew >= 0 ? "after" : "before",
        windows[0].label, apart ? ", and their runs do not overlap" : ""));
  }
}

// Which ranks on one host read the same channels.
struct HostCopies {
  std::map<std::string, std::string> host_of_channel;  // merged channel id -> host
  // host -> original channel id -> the merged id of the first rank on that host reporting it
  std::map<std::string, std::map<std::string, std::string>> first_copy;
};

// Where a host's shares were scaled down to its energy, its counters' observed-process figures
// are too, so that the merge's observed processes are the sum of its ranks' energies.
void fit_observed_shares(const std::map<std::string, double>& share_scale, const HostCopies& copies,
                         Profile& merged) {
  for (ChannelSummary& c : merged.channels) {
    const auto host = copies.host_of_channel.find(c.channel_id);
    if (!c.process || host == copies.host_of_channel.end()) continue;
    const auto scale = share_scale.find(host->second);
    if (scale == share_scale.end() || scale->second >= 1.0) continue;
    c.process->energy_j *= scale->second;
    if (c.process->dynamic_energy_j) *c.process->dynamic_energy_j *= scale->second;
    c.process->share = c.energy_j != 0.0 ? c.process->energy_j / c.energy_j : 0.0;
  }
}

// The first copy of a counter that several ranks on one host read stands for the host's counter:
// its observed processes are every rank's (the copies keep their own rank's).
void add_observed_share(Profile& merged, const std::string& first_copy,
                        const ProcessFigures& rank) {
  for (ChannelSummary& c : merged.channels) {
    if (c.channel_id != first_copy) continue;
    if (!c.process) {
      c.process = rank;
    } else {
      ProcessFigures& host = *c.process;
      host.energy_j += rank.energy_j;
      host.dynamic_energy_j = host.dynamic_energy_j && rank.dynamic_energy_j
                                  ? std::optional(*host.dynamic_energy_j + *rank.dynamic_energy_j)
                                  : std::nullopt;
      if (host.rule != rank.rule) host.rule += "+" + rank.rule;
    }
    // Each rank counted the others among the "other processes": that share no longer holds.
    c.process->others_activity_share.reset();
    c.process->share = c.energy_j != 0.0 ? c.process->energy_j / c.energy_j : 0.0;
    return;
  }
}

// One rank's series, summaries, records and warnings, renamed under its prefix and shifted onto
// the first profile's clock.
Status append_channels(const Profile& p, const std::string& prefix, const std::string& host,
                       TimeNs shift, HostCopies& copies, Profile& merged) {
  for (const Series& s : p.series) {
    Channel c = s.channel();
    const std::string original = c.id;
    c.id = prefix + c.id;
    c.device = prefix + c.device;
    if (!c.parent_id.empty()) c.parent_id = prefix + c.parent_id;
    // Two ranks on one host read the same hardware counter: the second copy is kept for the
    // record but nested under the first, so the total adds it once.
    auto [copy, first_on_host] = copies.first_copy[host].try_emplace(original, c.id);
    if (!first_on_host && c.parent_id.empty()) {
      c.parent_id = copy->second;
    }
    Series out(std::move(c));
    for (std::size_t k = 0; k < s.size(); ++k) {
      JP_RETURN_IF_ERROR(out.append(s[k].t_ns + shift, s[k].value));
    }
    for (const Gap& g : s.gaps()) out.add_gap(Gap{g.begin_ns + shift, g.end_ns + shift, g.reason});
    merged.series.push_back(std::move(out));
  }
  for (ChannelSummary c : p.channels) {
    const std::string original = c.channel_id;
    c.channel_id = prefix + c.channel_id;
    copies.host_of_channel[c.channel_id] = host;
    const std::string& first =
        copies.first_copy[host].try_emplace(original, c.channel_id).first->second;
    if (first != c.channel_id && c.process) add_observed_share(merged, first, *c.process);
    merged.channels.push_back(std::move(c));
  }
  for (AttributionRecord a : p.attribution) {
    a.channel_id = prefix + a.channel_id;
    merged.attribution.push_back(std::move(a));
  }
  const std::string label = prefix.substr(0, prefix.size() - 1);  // "r0@host"
  for (const std::string& w : p.warnings) merged.warnings.push_back(label + ": " + w);
  return Status::Ok();
}

// One rank's tracks, spans and marks, renamed under its prefix and shifted.
Status append_timeline(const Profile& p, const std::string& origin, const std::string& prefix,
                       TimeNs shift, Timeline& tl) {
  const auto track_base = static_cast<std::uint32_t>(tl.tracks().size());
  const auto span_base = static_cast<std::uint32_t>(tl.spans().size());
  const auto attributes_base = static_cast<std::uint32_t>(tl.attributes().size());
  for (const Track& t : p.timeline.tracks()) {
    tl.add_track(
        Track{t.kind, prefix + t.name, t.device.empty() ? std::string() : prefix + t.device});
  }
  for (const AttributeSet a : p.timeline.attributes()) tl.add_attributes(a);
  for (std::size_t k = 0; k < p.timeline.spans().size(); ++k) {
    const Span& s = p.timeline.spans()[k];
    if (s.name >= p.timeline.names().size() || s.track >= p.timeline.tracks().size()) {
      return invalid_input(origin, "timeline.spans[" + std::to_string(k) + "]",
                           std::to_string(s.name), "refers to a name or track that does not exist");
    }
    Span out = s;
    out.begin_ns += shift;
    out.end_ns += shift;
    out.track = track_base + s.track;
    out.name = tl.intern(p.timeline.name(s.name));
    if (s.parent != kNoIndex) out.parent = span_base + s.parent;
    if (s.attributes != kNoIndex) out.attributes = attributes_base + s.attributes;
    tl.add_span(out);
  }
  for (const Mark& mark : p.timeline.marks()) {
    if (mark.name >= p.timeline.names().size()) continue;
    tl.add_mark(
        Mark{mark.t_ns + shift, track_base + mark.track, tl.intern(p.timeline.name(mark.name))});
  }
  return Status::Ok();
}

}  // namespace

Result<Profile> merge_profiles(const std::vector<Profile>& profiles,
                               const std::vector<std::string>& origins) {
  if (profiles.empty()) return Error(ErrorCode::kInvalidInput, "merge: no profiles given");
  auto origin = [&](std::size_t i) {
    return i < origins.size() ? origins[i] : fmt::format("profile #{}", i + 1);
  };
  const Profile& first = profiles.front();
  Profile merged;
  RunMetadata& m = merged.meta;
  m.tool_version = first.meta.tool_version;
  m.kind = "merge";
  m.command = first.meta.command;
  m.anchor = first.meta.anchor;
  m.world_size = static_cast<int>(profiles.size());
  m.options.merge.ranks = profiles.size();

  std::vector<cluster::RankClaim> claims;
  std::vector<std::string> prefixes;
  std::vector<RankWindow> windows;
  std::map<std::pair<int, std::string>, std::size_t> seen;
  std::set<std::string> hosts;
  std::map<std::string, double> host_energy_j;
  HostCopies copies;
  std::set<std::string> mixed;
  bool window_set = false;
  for (std::size_t i = 0; i < profiles.size(); ++i) {
    const Profile& p = profiles[i];
    const int rank = p.meta.rank.value_or(static_cast<int>(i));
    if (rank < 0) {
      return invalid_input(origin(i), "meta.rank", std::to_string(rank),
                           "is not a rank (ranks count from 0)");
    }
    if (!p.meta.rank)
      merged.warnings.push_back(origin(i) + ": no rank recorded; numbered " + std::to_string(rank) +
                                " by its position");
    if (p.meta.world_size && *p.meta.world_size > *m.world_size) m.world_size = p.meta.world_size;
    const std::string host = p.meta.host.empty() ? "unknown-host" : p.meta.host;
    if (auto [it, inserted] = seen.try_emplace({rank, host}, i); !inserted) {
      return invalid_input(
          origin(i), "meta.rank", std::to_string(rank),
          "rank " + std::to_string(rank) + " on " + host + " is also in " + origin(it->second));
    }
    hosts.insert(host);
    const std::string label = fmt::format("r{}", rank);
    const std::string prefix = label + "@" + host + "/";
    JP_TRY(const std::optional<TimeNs> offset, clock_offset_ns(first, p, origin(0), origin(i)));
    if (!offset && i > 0)
      merged.warnings.push_back(origin(i) + ": no clock anchor; its times are used unshifted");
    const TimeNs shift = offset.value_or(0);
    JP_RETURN_IF_ERROR(check_shift(p, shift, origin(i)));
    m.options.merge.origin[label] = origin(i);
    m.options.merge.offset_ns[label] = shift;

    // Run window and outcome.
    windows.push_back({label, p.meta.begin_ns + shift, p.meta.end_ns + shift});
    if (p.meta.end_ns > p.meta.begin_ns) {
      m.begin_ns =
          window_set ? std::min(m.begin_ns, p.meta.begin_ns + shift) : p.meta.begin_ns + shift;
      m.end_ns = window_set ? std::max(m.end_ns, p.meta.end_ns + shift) : p.meta.end_ns + shift;
      window_set = true;
    }
    if (p.meta.exit_code && (!m.exit_code || *m.exit_code == 0)) m.exit_code = p.meta.exit_code;
    m.partial = m.partial || p.meta.partial;
    claims.push_back({label, host, energy_total_of(p), p.total_process_energy_j()});
    prefixes.push_back(prefix);
    // A profile without channels (a tree alone) brings its host its own total.
    if (p.channels.empty()) host_energy_j[host] += energy_total_of(p);

    JP_RETURN_IF_ERROR(append_channels(p, prefix, host, shift, copies, merged));
    JP_RETURN_IF_ERROR(append_timeline(p, origin(i), prefix, shift, merged.timeline));
  }
  add_job_warnings(profiles, origin, windows, merged.warnings);
  std::string host_list;
  for (const std::string& h : hosts) host_list += (host_list.empty() ? "" : ",") + h;
  m.host = host_list;
  for (const ChannelSummary& c : merged.channels) {
    const Series* s = merged.find_series(c.channel_id);
    if (s != nullptr && !s->channel().is_top_level()) continue;
    host_energy_j[copies.host_of_channel[c.channel_id]] += c.energy_j;
  }
  m.options.merge.host_energy_j = host_energy_j;

  // Trees, each brought to its rank's share of its host; the rest of each host's energy is
  // [other processes], so the tree sums to the headline total.
  cluster::HostDivision division = cluster::divide_host_energy(claims, host_energy_j);
  merged.warnings.insert(merged.warnings.end(), division.warnings.begin(), division.warnings.end());
  fit_observed_shares(division.share_scale, copies, merged);
  double untraced_j = 0.0;
  std::vector<std::string> untraced;  // the origins of the ranks without a tree
  for (std::size_t i = 0; i < profiles.size(); ++i) {
    const std::string& label = claims[i].label;
    const double rank_j = division.rank_j[i];
    m.options.merge.rank_energy_j[label] = rank_j;
    const std::optional<ProfileNode>& tree = profiles[i].tree;
    if (!tree) {
      untraced.push_back(origin(i));
      untraced_j += rank_j;
      continue;
    }
    ProfileNode rank_tree = *tree;
    if (tree->energy_j != 0.0) {
      scale_energies(rank_tree, rank_j / tree->energy_j);
    } else if (rank_j != 0.0) {
      merged.warnings.push_back(origin(i) + ": its tree holds 0 J, so its share (" +
                                fmt::format("{:.6g}", rank_j) + " J) is in no node below the root");
    }
    const StepCommunication steps = step_communication(rank_tree);
    if (steps.steps > 0) {
      m.options.merge.steps[label] = steps.steps;
      m.options.merge.step_time_s[label] = steps.step_time_s;
      m.options.merge.communication_time_s[label] = steps.communication_time_s;
      m.options.merge.communication_energy_j[label] = steps.communication_energy_j;
    }
    if (!merged.tree) {
      merged.tree = relabelled(rank_tree, prefixes[i]);
    } else {
      merge_node(*merged.tree, rank_tree, prefixes[i], merged.tree->name, mixed);
    }
  }
  if (merged.tree) {
    double others_j = 0.0;
    for (const auto& [host, j] : division.others_j) others_j += j;
    add_remainder_node(*merged.tree, kOtherProcessesNode, others_j);
    add_remainder_node(*merged.tree, kUntracedNode, untraced_j);
    // The root is the headline total: the channels' interval is its interval.
    if (merged.total_energy_band()) merged.tree->band = merged.total_energy_band();
  }
  for (const std::string& o : untraced) {
    merged.warnings.push_back(
        o + ": no breakdown tree; its energy is " +
        (merged.tree ? "under " + std::string(kUntracedNode) : std::string("in the totals only")));
  }
  for (const std::string& path : mixed) {
    merged.warnings.push_back("node " + path +
                              ": ranks disagree on provenance; the least direct is shown");
  }
  return merged;
}

}  // namespace jouleprof
