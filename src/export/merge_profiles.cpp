#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <map>
#include <set>

#include "jouleprof/cluster.hpp"
#include "jouleprof/history.hpp"

namespace jouleprof {
namespace {

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

void add_figures(ProfileNode& into, const ProfileNode& from, const std::string& prefix,
                 const std::string& path, std::set<std::string>& mixed) {
  // Different ranks measure different devices: their intervals are independent.
  into.band = into.band && from.band
                  ? std::optional<EnergyBand>(add_independent_bands(*into.band, *from.band))
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

// The offset that moves a time on `p`'s monotonic axis onto `first`'s, through the realtime
// anchors.
std::optional<TimeNs> clock_offset_ns(const Profile& first, const Profile& p) {
  const ClockAnchor& a = first.meta.anchor;
  const ClockAnchor& b = p.meta.anchor;
  if (a.realtime_ns == 0 || b.realtime_ns == 0) return std::nullopt;
  return (b.realtime_ns - b.monotonic_ns) - (a.realtime_ns - a.monotonic_ns);
}

// Which ranks on one host read the same channels.
struct HostCopies {
  std::map<std::string, std::string> host_of_channel;  // merged channel id -> host
  // host -> original channel id -> the merged id of the first rank on that host reporting it
  std::map<std::string, std::map<std::string, std::string>> first_copy;
  std::map<std::string, std::set<std::string>> shared_channels;  // host -> channel ids seen twice
};

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
      copies.shared_channels[host].insert(original);
    }
    Series out(std::move(c));
    for (std::size_t k = 0; k < s.size(); ++k) {
      JP_RETURN_IF_ERROR(out.append(s[k].t_ns + shift, s[k].value));
    }
    for (const Gap& g : s.gaps()) out.add_gap(Gap{g.begin_ns + shift, g.end_ns + shift, g.reason});
    merged.series.push_back(std::move(out));
  }
  for (ChannelSummary c : p.channels) {
    c.channel_id = prefix + c.channel_id;
    copies.host_of_channel[c.channel_id] = host;
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

  std::map<std::pair<int, std::string>, std::size_t> seen;
  std::set<std::string> hosts;
  std::map<std::string, double> host_energy_j;
  HostCopies copies;
  std::set<std::string> mixed;
  bool window_set = false;
  for (std::size_t i = 0; i < profiles.size(); ++i) {
    const Profile& p = profiles[i];
    const int rank = p.meta.rank.value_or(static_cast<int>(i));
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
    const std::optional<TimeNs> offset = clock_offset_ns(first, p);
    if (!offset && i > 0)
      merged.warnings.push_back(origin(i) + ": no clock anchor; its times are used unshifted");
    const TimeNs shift = offset.value_or(0);
    m.options.merge.origin[label] = origin(i);
    m.options.merge.offset_ns[label] = shift;

    // Run window and outcome.
    if (p.meta.end_ns > p.meta.begin_ns) {
      m.begin_ns =
          window_set ? std::min(m.begin_ns, p.meta.begin_ns + shift) : p.meta.begin_ns + shift;
      m.end_ns = window_set ? std::max(m.end_ns, p.meta.end_ns + shift) : p.meta.end_ns + shift;
      window_set = true;
    }
    if (p.meta.exit_code && (!m.exit_code || *m.exit_code == 0)) m.exit_code = p.meta.exit_code;
    m.partial = m.partial || p.meta.partial;
    m.options.merge.rank_energy_j[label] = energy_total_of(p);

    JP_RETURN_IF_ERROR(append_channels(p, prefix, host, shift, copies, merged));
    JP_RETURN_IF_ERROR(append_timeline(p, origin(i), prefix, shift, merged.timeline));

    // Tree.
    if (p.tree) {
      if (!merged.tree) {
        merged.tree = relabelled(*p.tree, prefix);
      } else {
        merge_node(*merged.tree, *p.tree, prefix, merged.tree->name, mixed);
      }
    } else {
      merged.warnings.push_back(origin(i) +
                                ": no breakdown tree; its energy is in the totals only");
    }
  }
  std::string host_list;
  for (const std::string& h : hosts) host_list += (host_list.empty() ? "" : ",") + h;
  m.host = host_list;
  for (const ChannelSummary& c : merged.channels) {
    const Series* s = merged.find_series(c.channel_id);
    if (s != nullptr && !s->channel().is_top_level()) continue;
    host_energy_j[copies.host_of_channel[c.channel_id]] += c.energy_j;
  }
  m.options.merge.host_energy_j = host_energy_j;
  for (const auto& [host, ids] : copies.shared_channels) {
    std::string list;
    for (const std::string& id : ids) list += (list.empty() ? "" : ", ") + id;
    merged.warnings.push_back(
        "several ranks on " + host + " report the same channels (" + list +
        "): counted once in the totals, but each of their trees holds that energy, so the "
        "merged tree over-counts it; profile one rank per node or give each rank its own "
        "devices");
  }
  for (const std::string& path : mixed) {
    merged.warnings.push_back("node " + path +
                              ": ranks disagree on provenance; the least direct is shown");
  }
  return merged;
}

}  // namespace jouleprof
