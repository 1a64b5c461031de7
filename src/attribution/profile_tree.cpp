#include "attribution/profile_tree.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string_view>
#include <unordered_map>

namespace jouleprof::attribution {

namespace {

struct FlatNode {
  std::string name;
  std::size_t parent = 0;  // the root is its own parent
  SpanCategory category = SpanCategory::kRegion;
  Pass pass = Pass::kNone;
  std::map<std::string, std::size_t, std::less<>> children;
  double self_energy_j = 0.0;
  double self_static_j = 0.0;
  // Per channel of TreeInputs::channels, summed as spans arrive without a lookup by channel id;
  // `charged` marks the channels that gave energy (only those appear in the node's map).
  std::vector<double> self_by_channel_j;
  std::vector<double> self_split_by_channel_j;
  std::vector<bool> charged;
  std::optional<EnergyBand> band;
  // Inclusive: the time of the spans that land here or below and whose parent span does not
  // (a module reached by spans of its own and by spans named below it counts both).
  TimeNs time_ns = 0;
  TimeNs self_time_ns = 0;
  std::uint64_t calls = 0;
};

class FlatTree {
 public:
  FlatTree(std::string root_name, const std::vector<ChannelFigures>& channels)
      : channels_(&channels) {
    FlatNode root;
    root.name = std::move(root_name);
    root.self_by_channel_j.assign(channels.size(), 0.0);
    root.self_split_by_channel_j.assign(channels.size(), 0.0);
    root.charged.assign(channels.size(), false);
    nodes_.push_back(std::move(root));
  }

  // A new node takes `category` (the span's whose name level it is: so that "bert" in a span named
  // "bert/encoder" is a layer too); a span of its own later sets its own.
  std::size_t child(std::size_t parent, std::string_view name, Pass pass, SpanCategory category) {
    auto& kids = nodes_[parent].children;
    if (auto it = kids.find(name); it != kids.end()) return it->second;
    const std::size_t id = nodes_.size();
    FlatNode node;
    node.name = std::string(name);
    node.parent = parent;
    node.pass = pass;
    node.category = category;
    node.self_by_channel_j.assign(channels_->size(), 0.0);
    node.self_split_by_channel_j.assign(channels_->size(), 0.0);
    node.charged.assign(channels_->size(), false);
    nodes_.push_back(std::move(node));
    nodes_[parent].children.emplace(std::string(name), id);
    return id;
  }

  FlatNode& operator[](std::size_t i) { return nodes_[i]; }

  // Every node's interval, from its inclusive energy and split per channel: a child is created
  // after its parent, so a walk from the last node to the first sees children first.
  void set_bands() {
    const std::size_t channels = channels_->size();
    std::vector<std::vector<double>> energy(nodes_.size()), split(nodes_.size());
    std::vector<ChannelPart> parts;
    for (std::size_t i = nodes_.size(); i-- > 0;) {
      energy[i].resize(channels);
      split[i].resize(channels);
      for (std::size_t c = 0; c < channels; ++c) {
        energy[i][c] += nodes_[i].self_by_channel_j[c];
        split[i][c] += nodes_[i].self_split_by_channel_j[c];
      }
      parts.clear();
      double total = 0.0;
      for (std::size_t c = 0; c < channels; ++c) {
        if (!(*channels_)[c].top_level) continue;
        total += energy[i][c];
        parts.push_back({&(*channels_)[c], energy[i][c], split[i][c]});
      }
      nodes_[i].band = node_band(total, parts);
      if (i == 0) break;
      const std::size_t parent = nodes_[i].parent;
      if (energy[parent].empty()) {
        energy[parent].assign(channels, 0.0);
        split[parent].assign(channels, 0.0);
      }
      for (std::size_t c = 0; c < channels; ++c) {
        energy[parent][c] += energy[i][c];
        split[parent][c] += split[i][c];
      }
      std::vector<double>().swap(energy[i]);
      std::vector<double>().swap(split[i]);
    }
  }

  // The subtree under node i as ProfileNodes, built with a heap stack (a tree may be very deep).
  ProfileNode to_profile(std::size_t i, Provenance provenance) const {
    ProfileNode root;
    std::vector<std::pair<std::size_t, ProfileNode*>> pending{{i, &root}};
    while (!pending.empty()) {
      const auto [flat, node] = pending.back();
      pending.pop_back();
      fill(flat, *node, provenance);
      const FlatNode& f = nodes_[flat];
      node->children.resize(f.children.size());  // once: the pointers below stay valid
      std::size_t k = 0;
      for (const auto& [name, id] : f.children) pending.emplace_back(id, &node->children[k++]);
    }
    return root;
  }

 private:
  void fill(std::size_t i, ProfileNode& node, Provenance provenance) const {
    const FlatNode& f = nodes_[i];
    node.name = f.name;
    node.category = f.category;
    node.pass = f.pass;
    node.self_energy_j = f.self_energy_j;
    node.energy_j = f.self_energy_j;
    for (std::size_t c = 0; c < f.charged.size(); ++c) {
      if (f.charged[c])
        node.energy_by_channel_j[(*channels_)[c].channel->channel_id] += f.self_by_channel_j[c];
    }
    node.static_energy_j = f.self_static_j;
    node.time_ns = f.time_ns;
    node.self_time_ns = f.self_time_ns;
    node.calls = f.calls;
    node.provenance = provenance;
    node.band = f.band;
  }

  const std::vector<ChannelFigures>* channels_;
  std::vector<FlatNode> nodes_;
};

std::string_view pass_node_name(Pass pass) {
  switch (pass) {
    case Pass::kForward:
      return "[forward]";
    case Pass::kBackward:
      return "[backward]";
    case Pass::kOptimizer:
      return "[optimizer]";
    case Pass::kCommunication:
      return "[communication]";
    case Pass::kNone:
      break;
  }
  return "[none]";
}

}  // namespace

Status check_tree_depth(const Timeline& timeline) {
  const std::vector<Span>& spans = timeline.spans();
  std::vector<std::size_t> levels_of_name(timeline.names().size(), 0);
  for (std::size_t n = 0; n < levels_of_name.size(); ++n) {
    std::string_view name = timeline.names()[n];
    std::size_t levels = 0;
    for (std::size_t start = 0; start <= name.size();) {
      const std::size_t slash = std::min(name.find('/', start), name.size());
      levels += slash > start ? 1 : 0;
      start = slash + 1;
    }
    levels_of_name[n] = levels;
  }
  constexpr std::size_t kUnknown = static_cast<std::size_t>(-1);
  std::vector<std::size_t> depth(spans.size(), kUnknown);
  std::vector<std::uint32_t> chain;
  for (std::uint32_t start = 0; start < spans.size(); ++start) {
    chain.clear();
    for (std::uint32_t s = start; s < spans.size() && depth[s] == kUnknown; s = spans[s].parent) {
      chain.push_back(s);
    }
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
      const Span& span = spans[*it];
      const std::size_t above = span.parent < spans.size() ? depth[span.parent] : 0;
      // + 1 for a pass node, which a span may add above its own levels.
      depth[*it] = above + levels_of_name[span.name] + 1;
      if (depth[*it] > kMaxProfileTreeDepth) {
        const std::string& name = timeline.name(span.name);
        return invalid_input(
            "timeline", fmt::format("span {}", *it),
            name.size() > 60 ? name.substr(0, 60) + "…" : name,
            fmt::format("lies {} or more levels deep (its parents and the '/' levels of their "
                        "names), beyond the {} levels of the deepest tree jouleprof builds",
                        depth[*it], kMaxProfileTreeDepth));
      }
    }
  }
  return Status::Ok();
}

void roll_up(ProfileNode& tree) {
  walk_tree_post_order(tree, [](ProfileNode& node) {
    double energy = node.self_energy_j;
    double static_j = node.static_energy_j.value_or(0.0);
    TimeNs child_time = 0;
    for (const ProfileNode& c : node.children) {
      energy += c.energy_j;
      static_j += c.static_energy_j.value_or(0.0);
      child_time += c.time_ns;
      for (const auto& [id, e] : c.energy_by_channel_j) node.energy_by_channel_j[id] += e;
    }
    node.energy_j = energy;
    if (node.static_energy_j.has_value()) {
      // A node whose power stayed below the idle power (a wait, a stall) holds less than idle ×
      // time: all of it is static, and its dynamic part 0, never negative.
      node.static_energy_j = std::clamp(static_j, 0.0, std::max(0.0, energy));
      node.dynamic_energy_j = energy - *node.static_energy_j;
    }
    if (node.calls == 0 && node.time_ns == 0) node.time_ns = child_time;
    std::stable_sort(
        node.children.begin(), node.children.end(),
        [](const ProfileNode& a, const ProfileNode& b) { return a.energy_j > b.energy_j; });
  });
}

ProfileNode build_span_tree(const TreeInputs& inputs, const std::vector<std::uint32_t>& spans,
                            std::uint32_t root_span, const std::string& root_name) {
  const Timeline& timeline = *inputs.timeline;
  const std::vector<Span>& all = timeline.spans();
  FlatTree tree(root_name, inputs.channels);
  const bool with_static = std::any_of(
      inputs.channels.begin(), inputs.channels.end(),
      [](const ChannelFigures& c) { return c.top_level && c.idle_power_w.has_value(); });

  // Node of each span, memoised; parents are resolved before children by recursion over the
  // parent chain (chains are short: model → layer → op → kernel). Kept over the indices `spans`
  // spans only, so that a step's tree (trees_per_repetition: one per step) costs its own spans,
  // not the timeline's.
  constexpr std::size_t kUnresolved = static_cast<std::size_t>(-1);
  std::uint32_t first = root_span;
  std::uint32_t last = root_span == kNoIndex ? 0 : root_span;
  for (std::uint32_t s : spans) {
    first = std::min(first, s);
    last = std::max(last, s);
  }
  if (first == kNoIndex) first = 0;
  const std::size_t extent = spans.empty() && root_span == kNoIndex ? 0 : last - first + 1;
  std::vector<std::size_t> node_by_index(extent, kUnresolved);
  std::vector<TimeNs> child_time_by_index(extent, 0);
  const auto in_extent = [&](std::uint32_t s) { return s >= first && s - first < extent; };
  const auto node_of = [&](std::uint32_t s) -> std::size_t& { return node_by_index[s - first]; };
  const auto child_time_ns = [&](std::uint32_t s) -> TimeNs& {
    return child_time_by_index[s - first];
  };
  std::vector<std::uint32_t> chain;
  std::unordered_map<std::uint64_t, std::size_t> node_cache;
  // The last key seen per name answers most lookups without hashing: spans of one name tend to
  // share their parent node (the kernels of every step, the ops of every layer).
  struct LastLookup {
    std::uint64_t key = ~std::uint64_t{0};
    std::size_t node = 0;
  };
  std::vector<LastLookup> last_by_name(timeline.names().size());
  // The span whose node a span's node hangs under: its parent's, except for a collective
  // (timeline/collectives.hpp), which goes under its step, or the innermost region outside every
  // training pass, so that communication never lands under the module whose gradient hook
  // started it.
  const auto tree_parent = [&](std::uint32_t span) {
    const std::uint32_t parent = all[span].parent;
    if (!inputs.split_passes || all[span].pass != Pass::kCommunication || parent == kNoIndex ||
        all[parent].pass == Pass::kCommunication) {
      return parent;
    }
    for (std::uint32_t p = parent; p != kNoIndex && p != root_span; p = all[p].parent) {
      if (all[p].category == SpanCategory::kStep || all[p].pass == Pass::kNone) return p;
    }
    return root_span;
  };
  const auto resolve = [&](std::uint32_t span) {
    chain.clear();
    for (std::uint32_t s = span; s != kNoIndex && node_of(s) == kUnresolved; s = all[s].parent) {
      chain.push_back(s);
      if (s == root_span) break;
    }
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
      const std::uint32_t s = *it;
      const Span& sp = all[s];
      if (s == root_span) {
        node_of(s) = 0;
        continue;
      }
      std::size_t parent_node = 0;
      Pass parent_pass = Pass::kNone;
      const std::uint32_t above = tree_parent(s);
      if (above != kNoIndex && node_of(above) != kUnresolved) {
        parent_node = node_of(above);
        parent_pass = all[above].pass;
      }
      // Spans with the same parent node, name and passes land on the same node: look it up once.
      // Three bits a pass (five passes), 26 for the parent node: a tree of more nodes looks the
      // rest up without the cache.
      const bool cached = parent_node < (std::size_t{1} << 26);
      const std::uint64_t key = cached ? (static_cast<std::uint64_t>(parent_node) << 38) |
                                             (static_cast<std::uint64_t>(parent_pass) << 35) |
                                             (static_cast<std::uint64_t>(sp.pass) << 32) | sp.name
                                       : ~std::uint64_t{0};
      LastLookup& seen = last_by_name[sp.name];
      if (cached && seen.key == key) {
        node_of(s) = seen.node;
        continue;
      }
      if (auto hit = node_cache.find(key); cached && hit != node_cache.end()) {
        node_of(s) = hit->second;
        seen = LastLookup{key, hit->second};
        continue;
      }
      if (inputs.split_passes && sp.pass != Pass::kNone && sp.pass != parent_pass) {
        parent_node =
            tree.child(parent_node, pass_node_name(sp.pass), sp.pass, SpanCategory::kRegion);
      }
      const std::string& name = timeline.name(sp.name);
      std::size_t start = 0;
      while (true) {
        const std::size_t slash = name.find('/', start);
        const std::string_view level = std::string_view(name).substr(
            start, slash == std::string::npos ? std::string::npos : slash - start);
        if (!level.empty()) parent_node = tree.child(parent_node, level, sp.pass, sp.category);
        if (slash == std::string::npos) break;
        start = slash + 1;
      }
      tree[parent_node].category = sp.category;
      node_of(s) = parent_node;
      if (!cached) continue;
      node_cache.emplace(key, parent_node);
      seen = LastLookup{key, parent_node};
    }
  };

  for (std::uint32_t s : spans) {
    const Span& sp = all[s];
    if (sp.parent != kNoIndex && in_extent(sp.parent) && all[sp.parent].track == sp.track) {
      child_time_ns(sp.parent) += sp.duration_ns();
    }
  }
  // A span's time counts at its node and every node above it up to its parent span's node (whose
  // own span already covers it), or up to the root.
  const auto add_inclusive_time = [&](std::uint32_t span) {
    const std::uint32_t parent = tree_parent(span);
    const std::size_t stop = parent != kNoIndex && in_extent(parent) && span != root_span &&
                                     node_of(parent) != kUnresolved
                                 ? node_of(parent)
                                 : kUnresolved;
    for (std::size_t n = node_of(span); n != stop; n = tree[n].parent) {
      tree[n].time_ns += all[span].duration_ns();
      if (n == 0) break;
    }
  };
  for (std::uint32_t s : spans) {
    resolve(s);
    const Span& sp = all[s];
    FlatNode& node = tree[node_of(s)];
    node.calls += 1;
    add_inclusive_time(s);
    node.self_time_ns += std::max<TimeNs>(0, sp.duration_ns() - child_time_ns(s));
    for (std::size_t k = 0; k < inputs.channels.size(); ++k) {
      const ChannelFigures& c = inputs.channels[k];
      const double e = c.channel->span_energy_j[s];
      if (e == 0.0) continue;
      node.self_by_channel_j[k] += e;
      node.self_split_by_channel_j[k] += c.channel->span_split_j[s];
      node.charged[k] = true;
      if (!c.top_level) continue;
      node.self_energy_j += e;
      if (c.idle_power_w) node.self_static_j += *c.idle_power_w * c.channel->span_shared_time_s[s];
    }
  }
  tree.set_bands();
  ProfileNode root = tree.to_profile(0, inputs.provenance);
  if (!with_static) {
    // No baseline: static/dynamic stay unset everywhere.
    walk_tree(root, [](ProfileNode& n, int) { n.static_energy_j.reset(); });
  }
  return root;
}

EnergyBand node_band(double energy_j, const std::vector<ChannelPart>& parts) {
  std::vector<UncertaintyPart> terms;
  for (const ChannelPart& part : parts) {
    const ChannelAttribution& channel = *part.channel->channel;
    if (channel.measured_energy_j != 0.0) {
      const double share = std::abs(part.energy_j / channel.measured_energy_j);
      for (UncertaintyPart term : channel.counter_uncertainty) {
        term.half_width_j *= share;
        term.missing_low_j *= share;
        term.missing_high_j *= share;
        terms.push_back(term);
      }
    }
    if (part.split_j > 0.0) terms.push_back({UncertaintyTerm::kSplit, part.split_j, 0.0, 0.0});
  }
  return combine_uncertainty(energy_j, terms);
}

}  // namespace jouleprof::attribution
