// Roll-up of per-span energies into the ProfileNode tree along span paths (parents, then
// '/'-separated name levels), with a pass node inserted where a span's pass differs from its
// parent's.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "jouleprof/attribution.hpp"
#include "jouleprof/profile.hpp"
#include "jouleprof/timeline.hpp"

namespace jouleprof::attribution {

struct ChannelFigures {
  const ChannelAttribution* channel = nullptr;
  bool top_level = true;               // adds into node energy_j
  std::optional<double> idle_power_w;  // enables static/dynamic for this channel
};

struct TreeInputs {
  const Timeline* timeline = nullptr;
  std::vector<ChannelFigures> channels;
  bool split_passes = true;
  Provenance provenance = Provenance::kInterpolated;
};

// Tree over `spans` (indices into the timeline). With root_span == kNoIndex the root is the run
// and top-level spans hang under it; otherwise the root is that span and `spans` must be it and
// its descendants. The root's name is `root_name`.
ProfileNode build_span_tree(const TreeInputs& inputs, const std::vector<std::uint32_t>& spans,
                            std::uint32_t root_span, const std::string& root_name);

// An error naming the first span whose tree node would lie deeper than kMaxProfileTreeDepth
// levels (its ancestors, their '/'-separated name levels and pass nodes together). The timeline
// must have no parent cycle (Timeline::find_parent_cycle).
Status check_tree_depth(const Timeline& timeline);

// Inclusive figures (energy, static, time where a node has no spans of its own) from self figures,
// children sorted by energy, largest first.
void roll_up(ProfileNode& node);

// The 95 % interval of a figure made of these channels' energies (energy_j, top-level channels
// only) with these split half-widths (docs/uncertainty.md): each channel's own terms in
// proportion to its share of what the channel measured, and the split.
struct ChannelPart {
  const ChannelFigures* channel = nullptr;
  double energy_j = 0.0;
  double split_j = 0.0;
};
EnergyBand node_band(double energy_j, const std::vector<ChannelPart>& parts);

}  // namespace jouleprof::attribution
