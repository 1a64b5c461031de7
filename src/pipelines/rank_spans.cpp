#include "pipelines/rank_spans.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <system_error>

#include "timeline/collectives.hpp"

namespace jouleprof {
namespace {

namespace fs = std::filesystem;

bool is_dump_name(const std::string& name) {
  return name.size() > 11 && name.starts_with("spans-") && name.ends_with(".json");
}

// `from`'s tracks, attribute sets, spans and marks after `into`'s. With a `wrapper` name, every
// top-level span gets a parent of that name and the same extent: a node of the tree above the
// process's own, which takes no energy of its own (its child covers all of its time).
void append_dump_timeline(const Timeline& from, const std::string& wrapper, Timeline& into) {
  const auto track_base = static_cast<std::uint32_t>(into.tracks().size());
  const auto attributes_base = static_cast<std::uint32_t>(into.attributes().size());
  const std::uint32_t wrapper_name = wrapper.empty() ? kNoIndex : into.intern(wrapper);
  for (const Track& t : from.tracks()) into.add_track(t);
  for (const AttributeSet a : from.attributes()) into.add_attributes(a);
  // Parents are placed before their children, as a dump requires: a collective given its step
  // across threads (mark_collectives) may come before that step in `from`.
  std::vector<std::uint32_t> moved_to(from.spans().size(), kNoIndex);
  const auto place = [&](std::uint32_t k) {
    const Span& s = from.spans()[k];
    Span out = s;
    out.track = track_base + s.track;
    out.name = into.intern(from.name(s.name));
    if (s.attributes != kNoIndex) out.attributes = attributes_base + s.attributes;
    if (s.parent != kNoIndex) {
      out.parent = moved_to[s.parent];
    } else if (wrapper_name != kNoIndex) {
      out.parent = into.add_span(Span{s.begin_ns, s.end_ns, out.track, wrapper_name, kNoIndex,
                                      kNoIndex, SpanCategory::kRegion, Pass::kNone});
    }
    moved_to[k] = into.add_span(out);
  };
  std::vector<std::uint32_t> chain;
  for (std::uint32_t k = 0; k < from.spans().size(); ++k) {
    for (std::uint32_t s = k; s != kNoIndex && moved_to[s] == kNoIndex; s = from.spans()[s].parent)
      chain.push_back(s);
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) place(*it);
    chain.clear();
  }
  for (const Mark& m : from.marks())
    into.add_mark(Mark{m.t_ns, track_base + m.track, into.intern(from.name(m.name))});
}

const ProfileNode* rank_subtree(const Profile& run, int rank) {
  return run.tree ? run.tree->child(rank_node_name(rank)) : nullptr;
}

}  // namespace

std::vector<ChildDump> read_child_dumps(const std::string& directory,
                                        std::vector<std::string>& warnings) {
  std::vector<std::string> paths;
  std::error_code ec;
  for (const fs::directory_entry& entry : fs::directory_iterator(directory, ec)) {
    if (is_dump_name(entry.path().filename().string())) paths.push_back(entry.path().string());
  }
  std::sort(paths.begin(), paths.end());
  std::vector<ChildDump> dumps;
  for (const std::string& path : paths) {
    Result<SpanDump> dump = read_span_dump(path);
    if (!dump) {
      warnings.push_back("the spans of one process could not be read: " + dump.error().message());
      continue;
    }
    const std::map<std::string, std::string>& variables = dump->launcher_environment;
    ClusterIdentity identity = detect_cluster_identity([&](const char* name) -> const char* {
      const auto found = variables.find(name);
      return found == variables.end() ? nullptr : found->second.c_str();
    });
    dumps.push_back({path, std::move(dump).value(), std::move(identity)});
  }
  return dumps;
}

std::vector<int> ranks_of(const std::vector<ChildDump>& dumps) {
  std::set<int> ranks;
  for (const ChildDump& d : dumps) {
    if (d.identity.rank) ranks.insert(*d.identity.rank);
  }
  if (ranks.size() < 2) return {};
  return {ranks.begin(), ranks.end()};
}

std::string rank_node_name(int rank) { return fmt::format("[rank {}]", rank); }

SpanDump combine_child_dumps(const std::vector<ChildDump>& dumps, const std::vector<int>& ranks) {
  SpanDump combined;
  for (const ChildDump& d : dumps) {
    combined.dropped += d.dump.dropped;
    if (combined.recorder_clock.empty()) combined.recorder_clock = d.dump.recorder_clock;
    const bool ranked = !ranks.empty() && d.identity.rank.has_value();
    if (!ranked) {
      append_dump_timeline(d.dump.timeline, "", combined.timeline);
      continue;
    }
    Timeline own = d.dump.timeline;
    timeline::mark_collectives(own);
    append_dump_timeline(own, rank_node_name(*d.identity.rank), combined.timeline);
  }
  if (dumps.size() == 1) {
    combined.pid = dumps.front().dump.pid;
    combined.launcher_environment = dumps.front().dump.launcher_environment;
  }
  return combined;
}

std::vector<Profile> rank_profiles(const Profile& run, const std::vector<ChildDump>& dumps,
                                   const std::vector<int>& ranks) {
  std::vector<Profile> out;
  for (const int rank : ranks) {
    Profile p;
    p.meta = run.meta;
    p.series = run.series;
    p.channels = run.channels;
    p.attribution = run.attribution;
    if (out.empty()) p.warnings = run.warnings;
    // The rank's own spans, as its processes recorded them (no [rank N] parents).
    bool identified = false;
    for (const ChildDump& d : dumps) {
      if (d.identity.rank != rank) continue;
      if (!identified) apply_cluster_identity(d.identity, p.meta);
      identified = true;
      append_dump_timeline(d.dump.timeline, "", p.timeline);
    }
    const ProfileNode* subtree = rank_subtree(run, rank);
    if (subtree != nullptr) {
      p.tree = *subtree;
      p.tree->name = run.tree->name;
    } else {
      p.warnings.push_back(fmt::format("rank {}: none of its spans received energy", rank));
    }
    for (ChannelSummary& c : p.channels) {
      const Series* s = p.find_series(c.channel_id);
      if (s == nullptr || !s->channel().carries_energy()) continue;
      ProcessFigures figures;
      if (subtree != nullptr) {
        const auto found = subtree->energy_by_channel_j.find(c.channel_id);
        figures.energy_j = found == subtree->energy_by_channel_j.end() ? 0.0 : found->second;
      }
      figures.share = c.energy_j > 0.0 ? figures.energy_j / c.energy_j : 0.0;
      figures.rule = "rank-spans";
      c.process = figures;
    }
    out.push_back(std::move(p));
  }
  return out;
}

}  // namespace jouleprof
