// Profile: everything one run produced — the measured series, the timeline, the attribution tree
// and the metadata (host, command, sources, options, warnings). Every command that measures writes
// one; every report reads one. Written to JSON and read back, a profile is identical.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "jouleprof/attribution_diagnostics.hpp"
#include "jouleprof/attribution_method.hpp"
#include "jouleprof/channel.hpp"
#include "jouleprof/clock.hpp"
#include "jouleprof/energy_band.hpp"
#include "jouleprof/recorded_options.hpp"
#include "jouleprof/result.hpp"
#include "jouleprof/series.hpp"
#include "jouleprof/timeline.hpp"

namespace jouleprof {

// 2: packed sample and span columns, typed attribution methods, channel labels (docs/schema.md).
// 3: 95 % intervals (energy_j_low, energy_j_high) on nodes and channels, and channels'
// uncertainty terms. Versions 1 and 2 still read (their figures have no interval).
// 4: the [communication] pass in packed spans.
// 5: energy per step and per epoch (a mean with its Student-t interval) and each epoch's
// interval. Older versions still read (without them).
inline constexpr int kProfileSchemaVersion = 5;
// The deepest breakdown tree jouleprof builds or reads. Every walk is linear, so this bounds only
// memory (a few hundred bytes a level); deeper input is refused with an error saying so.
inline constexpr std::size_t kMaxProfileTreeDepth = 1'000'000;

// Spread of a figure over repeated steps or runs.
struct RepetitionStats {
  std::uint32_t n = 0;
  double mean = 0.0;
  double median = 0.0;
  double stdev = 0.0;
  double ci95_low = 0.0;  // Student-t 95 % confidence interval of the mean
  double ci95_high = 0.0;
};

// The energy of a repeated piece of work (a training step, an epoch) per repetition: the spread of
// the repetitions' energies, and the 95 % interval of their mean, the Student-t interval combined
// with the terms that repeat alike (repeated_band, docs/uncertainty.md "Repetition").
struct RepeatedEnergy {
  RepetitionStats stats;  // over the repetitions' energies; stats.mean is the figure
  EnergyBand band;        // the 95 % interval of stats.mean
};

// One node of the breakdown tree: the run, a pass, a layer, an operator. Inclusive figures contain
// the children's; `self_*` are what is charged here and to no child. A tree is as deep as its
// input (a chain of 100 000 nested spans is a 100 000-level tree), so copying and destroying one
// walk it on the heap, never by recursion; so do walk_tree() and walk_tree_post_order() below, and
// every walk in jouleprof.
struct ProfileNodeFigures {
  std::string name;
  SpanCategory category = SpanCategory::kRegion;
  Pass pass = Pass::kNone;
  double energy_j = 0.0;
  double self_energy_j = 0.0;
  std::optional<double> static_energy_j;   // idle baseline × time, when a baseline was measured
  std::optional<double> dynamic_energy_j;  // energy_j − static_energy_j
  TimeNs time_ns = 0;
  TimeNs self_time_ns = 0;
  std::uint64_t calls = 0;
  Provenance provenance = Provenance::kMeasured;
  std::map<std::string, double> energy_by_channel_j;
  std::optional<RepetitionStats> energy_stats;
  // The 95 % interval of energy_j (docs/uncertainty.md); absent in profiles older than schema 3.
  std::optional<EnergyBand> band;
};

struct ProfileNode : ProfileNodeFigures {
  std::vector<ProfileNode> children;

  ProfileNode() = default;
  ProfileNode(const ProfileNode& other);
  ProfileNode(ProfileNode&& other) noexcept = default;
  ProfileNode& operator=(const ProfileNode& other);
  ProfileNode& operator=(ProfileNode&& other) noexcept = default;
  ~ProfileNode();

  double mean_power_w() const { return time_ns > 0 ? energy_j / ns_to_s(time_ns) : 0.0; }
  const ProfileNode* child(std::string_view child_name) const;
  ProfileNode* child(std::string_view child_name);
};

// The observed processes' part of a channel (docs/sharing.md): an attribution by `rule`, never a
// measurement.
struct ProcessFigures {
  double energy_j = 0.0;                   // by the run's static-share rule
  double share = 0.0;                      // energy_j / the channel's energy_j (0 when that is 0)
  std::optional<double> dynamic_energy_j;  // their share of the energy above the baseline
  std::optional<double> others_activity_share;  // other processes' share of the device's work
  std::string rule;                             // "cpu-time", "gpu-utilisation", "gpu-sole-user"
};
// Pre-order walk without recursion: visit(node, depth) for the root (depth 0) and every node under
// it, parents before children, children in their stored order. A visit that returns false skips
// the node's subtree. `Node` is ProfileNode or const ProfileNode.
template <typename Node, typename Visit>
void walk_tree(Node& root, Visit&& visit) {
  std::vector<std::pair<Node*, int>> pending{{&root, 0}};
  while (!pending.empty()) {
    const auto [node, depth] = pending.back();
    pending.pop_back();
    if constexpr (std::is_same_v<decltype(visit(*node, depth)), bool>) {
      if (!visit(*node, depth)) continue;
    } else {
      visit(*node, depth);
    }
    for (auto it = node->children.rbegin(); it != node->children.rend(); ++it) {
      pending.emplace_back(&*it, depth + 1);
    }
  }
}

// Post-order walk without recursion: visit(node) once all of its children have been visited.
template <typename Node, typename Visit>
void walk_tree_post_order(Node& root, Visit&& visit) {
  std::vector<std::pair<Node*, std::size_t>> pending{{&root, 0}};  // node, next child
  while (!pending.empty()) {
    auto& [node, next] = pending.back();
    if (next < node->children.size()) {
      Node* child = &node->children[next++];
      pending.emplace_back(child, 0);  // may move `node` and `next`: not used after this
      continue;
    }
    Node* done = node;
    pending.pop_back();
    visit(*done);
  }
}

// Per-channel totals over the run window.
struct ChannelSummary {
  std::string channel_id;
  double energy_j = 0.0;               // gross energy over the run
  std::optional<double> idle_power_w;  // measured baseline, when one was taken
  std::optional<double> net_energy_j;  // energy_j − idle_power_w × duration
  TimeNs duration_ns = 0;
  double mean_power_w = 0.0;
  double peak_power_w = 0.0;
  Provenance provenance = Provenance::kMeasured;
  // The 95 % interval of energy_j and the counter's terms that make it (docs/uncertainty.md).
  std::optional<EnergyBand> band = std::nullopt;
  std::vector<UncertaintyPart> uncertainty = {};

  // The observed processes' part of this channel (ProcessFigures); absent when no processes were
  // observed or no rule applies (the profile's warnings say why).
  std::optional<ProcessFigures> process = std::nullopt;
};

// Which attribution method a channel got, and why; what the method found about its own fit
// (e.g. rank, condition number and standard errors for regression).
struct AttributionRecord {
  std::string channel_id;
  // None when the channel had nothing to give (no readings inside the window): written "none".
  std::optional<AttributionMethod> method;
  std::string reason;
  AttributionDiagnostics diagnostics;
  std::vector<std::string> notes;
};

// One epoch of a training run, from its epoch_begin / epoch_end marks: its window and the energy
// of the top-level channels in it. `counter_updates` is the fewest updates any of those channels
// made inside the window: under kMinEpochCounterUpdates the epoch's energy is mostly the
// counter's resolution (a warning says so).
struct EpochSummary {
  TimeNs begin_ns = 0;
  TimeNs end_ns = 0;
  double energy_j = 0.0;
  std::uint64_t counter_updates = 0;
  // The 95 % interval of energy_j from its channels' terms over the epoch's window; absent in
  // profiles older than schema 5 and where a channel gives none.
  std::optional<EnergyBand> band = std::nullopt;

  TimeNs duration_ns() const { return end_ns - begin_ns; }
};
inline constexpr std::uint64_t kMinEpochCounterUpdates = 10;

struct RunMetadata {
  std::string tool_version;
  std::string kind;                  // "run", "profile", "measure", "attribute", "merge"
  std::vector<std::string> command;  // the profiled command or model description
  std::string host;
  std::optional<int> rank;
  std::optional<int> world_size;
  ClockAnchor anchor;   // monotonic ↔ realtime for this run
  TimeNs begin_ns = 0;  // run window on the monotonic axis
  TimeNs end_ns = 0;
  std::optional<int> exit_code;
  bool partial = false;     // cut short: what was measured is kept, the rest is missing
  RecordedOptions options;  // meta.options: how the profile was made
  std::optional<double> grid_intensity_g_per_kwh;
};

struct Profile {
  int schema_version = kProfileSchemaVersion;
  RunMetadata meta;
  std::vector<Series> series;
  std::vector<ChannelSummary> channels;
  Timeline timeline;
  std::optional<ProfileNode> tree;
  std::vector<AttributionRecord> attribution;
  std::vector<EpochSummary> epochs;  // empty unless the run marked epochs
  // The mean energy of a step (spans of category kStep, attributed) and of an epoch, over two or
  // more of them; absent otherwise and in profiles older than schema 5. A step's figure is its
  // spans' attributed energy, an epoch's what the top-level channels measured in its window.
  std::optional<RepeatedEnergy> energy_per_step;
  std::optional<RepeatedEnergy> energy_per_epoch;
  std::vector<std::string> warnings;

  const Series* find_series(std::string_view channel_id) const;
  // Sum of the top-level energy channels' gross energy: nested channels are never added.
  double total_energy_j() const;
  // The observed processes' part of it: the top-level channels' process energy (attributed);
  // nullopt when no top-level channel has one. Channels without one are left out (see warnings).
  std::optional<double> total_process_energy_j() const;
  // Where that total came from: the least direct provenance among the top-level channels
  // (measured < interpolated < imported < estimated < predicted < simulated < attributed), so that
  // a total with any estimated part says "estimated"; the tree root's without channel summaries,
  // and measured when the profile has neither.
  Provenance total_provenance() const;
  // The 95 % interval of total_energy_j(): the top-level channels' intervals, independent
  // devices, added as the root sum of squares; the tree root's without channel intervals.
  std::optional<EnergyBand> total_energy_band() const;
};

// What in a profile's figures cannot be true, one warning per kind of problem (naming the first
// nodes or channels affected): a tree node whose children hold more energy than it does (shares
// above 100 %), and energies that are not finite, or negative where no channel may go negative
// (only a battery's may). Empty for every profile jouleprof itself attributes; reports show these
// warnings beside the profile's own.
std::vector<std::string> figure_problems(const Profile& profile);

// How a profile's large arrays (series samples, timeline spans) are written: packed into columns,
// deflated and base64-encoded in one string each (a million spans take a few MB and well under a
// second), or expanded into one JSON array a row, for people and jq. Both read back identically.
enum class ProfileArrays : std::uint8_t { kPacked, kExpanded };

// Written to a temporary file beside `path` and renamed over it, so a failed write never leaves a
// truncated profile.
Status write_profile_json(const Profile& profile, const std::string& path,
                          ProfileArrays arrays = ProfileArrays::kPacked);
Result<Profile> read_profile_json(const std::string& path);
std::string profile_to_json_string(const Profile& profile, int indent = -1,
                                   ProfileArrays arrays = ProfileArrays::kExpanded);
Result<Profile> profile_from_json_string(const std::string& text, const std::string& origin);

}  // namespace jouleprof
