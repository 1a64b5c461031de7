// Views over a profile tree: operation accounting, repetitions and run-to-run agreement.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <map>

#include "attribution/profile_tree.hpp"
#include "jouleprof/attribution.hpp"
#include "jouleprof/statistics.hpp"

namespace jouleprof {

namespace {

// Nodes of one tree share their channels' terms: their intervals add as correlated ones. A figure
// without an interval makes the sum's unknown.
void add_figures(ProfileNode& into, const ProfileNode& from) {
  into.band = into.band && from.band
                  ? std::optional<EnergyBand>(add_correlated_bands(*into.band, *from.band))
                  : std::nullopt;
  into.energy_j += from.energy_j;
  into.self_energy_j += from.self_energy_j;
  if (from.static_energy_j)
    into.static_energy_j = into.static_energy_j.value_or(0.0) + *from.static_energy_j;
  if (from.dynamic_energy_j)
    into.dynamic_energy_j = into.dynamic_energy_j.value_or(0.0) + *from.dynamic_energy_j;
  into.time_ns += from.time_ns;
  into.self_time_ns += from.self_time_ns;
  into.calls += from.calls;
  for (const auto& [id, e] : from.energy_by_channel_j) into.energy_by_channel_j[id] += e;
}

// Adds `from`'s figures into `into`, and each child into the child of the same name (a copy of
// it where `into` has none).
void merge_into(ProfileNode& into, const ProfileNode& from) {
  std::vector<std::pair<ProfileNode*, const ProfileNode*>> pending{{&into, &from}};
  while (!pending.empty()) {
    const auto [to, source] = pending.back();
    pending.pop_back();
    add_figures(*to, *source);
    // Copies first, pointers after: appending may move the children.
    std::vector<bool> copied(source->children.size(), false);
    for (std::size_t i = 0; i < source->children.size(); ++i) {
      if (to->child(source->children[i].name) == nullptr) {
        to->children.push_back(source->children[i]);
        copied[i] = true;
      }
    }
    for (std::size_t i = 0; i < source->children.size(); ++i) {
      if (!copied[i])
        pending.emplace_back(to->child(source->children[i].name), &source->children[i]);
    }
  }
}

void sort_by_energy(std::vector<ProfileNode>& nodes) {
  std::stable_sort(nodes.begin(), nodes.end(), [](const ProfileNode& a, const ProfileNode& b) {
    return a.energy_j > b.energy_j;
  });
}

// Bottom up: a node's children are collapsed (renamed, same names merged, sorted) before it is.
ProfileNode collapse(const ProfileNode& tree) {
  ProfileNode out = tree;
  walk_tree_post_order(out, [](ProfileNode& node) {
    node.name = collapse_index_name(node.name);
    std::vector<ProfileNode> merged;
    merged.reserve(node.children.size());
    for (ProfileNode& c : node.children) {
      const auto same = std::find_if(merged.begin(), merged.end(),
                                     [&](const ProfileNode& m) { return m.name == c.name; });
      if (same != merged.end()) {
        merge_into(*same, c);
      } else {
        merged.push_back(std::move(c));
      }
    }
    sort_by_energy(merged);
    node.children = std::move(merged);
  });
  return out;
}

// Every node below the root by its path ("/a/b"), with a visit of each.
template <typename Node, typename Visit>
void walk_paths(Node& root, Visit&& visit) {
  std::vector<std::pair<Node*, std::string>> pending;
  for (auto& c : root.children) pending.emplace_back(&c, "/" + c.name);
  std::reverse(pending.begin(), pending.end());
  while (!pending.empty()) {
    auto [node, path] = std::move(pending.back());
    pending.pop_back();
    visit(*node, path);
    for (auto it = node->children.rbegin(); it != node->children.rend(); ++it) {
      pending.emplace_back(&*it, path + "/" + it->name);
    }
  }
}

void collect_paths(const ProfileNode& root, std::map<std::string, double>& out) {
  walk_paths(root,
             [&](const ProfileNode& node, const std::string& path) { out[path] += node.energy_j; });
}

void apply_stats(ProfileNode& root, const std::map<std::string, std::vector<double>>& values) {
  walk_paths(root, [&](ProfileNode& node, const std::string& path) {
    if (auto it = values.find(path); it != values.end()) node.energy_stats = summarize(it->second);
  });
}

void scale_tree(ProfileNode& tree, double factor) {
  walk_tree(tree, [factor](ProfileNode& node, int) {
    node.energy_j *= factor;
    node.self_energy_j *= factor;
    if (node.static_energy_j) *node.static_energy_j *= factor;
    if (node.dynamic_energy_j) *node.dynamic_energy_j *= factor;
    node.time_ns = static_cast<TimeNs>(static_cast<double>(node.time_ns) * factor);
    node.self_time_ns = static_cast<TimeNs>(static_cast<double>(node.self_time_ns) * factor);
    node.calls = static_cast<std::uint64_t>(std::llround(static_cast<double>(node.calls) * factor));
    for (auto& [id, e] : node.energy_by_channel_j) e *= factor;
    if (node.band) {
      node.band->low_j *= factor;
      node.band->high_j *= factor;
    }
  });
}

// The mean's interval over repetitions: the repetitions' mean interval (their own terms) with the
// Student-t interval of the path's values, independent of it.
void widen_by_repetition(ProfileNode& root) {
  walk_tree(root, [](ProfileNode& node, int) {
    if (!node.band || !node.energy_stats || node.energy_stats->n < 2) return;
    const EnergyBand own = *node.band;
    const UncertaintyPart parts[] = {
        {own.dominant, own.half_width_j()},
        {UncertaintyTerm::kRepetition,
         0.5 * (node.energy_stats->ci95_high - node.energy_stats->ci95_low)}};
    // Centred as the repetitions' mean interval was (a gap's missing energy shifts it upward).
    const double shift = 0.5 * (own.low_j + own.high_j) - node.energy_j;
    EnergyBand band = combine_uncertainty(node.energy_j, parts);
    band.low_j = std::min(band.low_j + shift, node.energy_j);
    band.high_j = std::max(band.high_j + shift, node.energy_j);
    node.band = band;
  });
}

}  // namespace

std::string collapse_index_name(std::string_view name) {
  std::string out;
  out.reserve(name.size());
  std::size_t i = 0;
  while (i < name.size()) {
    const char c = name[i];
    const bool after_separator = !out.empty() && (out.back() == '_' || out.back() == '.' ||
                                                  out.back() == '-' || out.back() == '[');
    if (after_separator && std::isdigit(static_cast<unsigned char>(c))) {
      while (i < name.size() && std::isdigit(static_cast<unsigned char>(name[i]))) ++i;
      out += '*';
      continue;
    }
    out += c;
    ++i;
  }
  return out;
}

ProfileNode collapse_indices(const ProfileNode& tree) { return collapse(tree); }

std::vector<OperatorTotal> top_operators(const ProfileNode& tree, std::size_t n) {
  std::map<std::string, OperatorTotal> totals;
  walk_tree(tree, [&](const ProfileNode& c, int depth) {
    if (depth > 0 && !c.name.empty() && c.name.front() != '[' && c.self_energy_j != 0.0) {
      OperatorTotal& t = totals[collapse_index_name(c.name)];
      t.energy_j += c.self_energy_j;
      t.time_ns += c.self_time_ns;
      t.calls += c.calls;
    }
  });
  std::vector<OperatorTotal> out;
  out.reserve(totals.size());
  for (auto& [name, t] : totals) {
    t.name = name;
    out.push_back(t);
  }
  std::stable_sort(out.begin(), out.end(), [](const OperatorTotal& a, const OperatorTotal& b) {
    return a.energy_j > b.energy_j;
  });
  if (out.size() > n) out.resize(n);
  return out;
}

std::vector<ProfileNode> trees_per_repetition(const AttributionResult& result,
                                              const Timeline& timeline, SpanCategory category) {
  const std::vector<Span>& spans = timeline.spans();
  constexpr std::uint32_t kNone = kNoIndex;
  std::vector<std::uint32_t> repetition_of(spans.size(), kNone);
  std::vector<std::uint32_t> roots;
  for (std::uint32_t i = 0; i < spans.size(); ++i) {
    if (spans[i].category == category) {
      repetition_of[i] = static_cast<std::uint32_t>(roots.size());
      roots.push_back(i);
    }
  }
  // The repetition of every span: its nearest ancestor of `category` (memoised walk up).
  std::vector<bool> resolved(spans.size(), false);
  std::vector<std::uint32_t> chain;
  for (std::uint32_t i = 0; i < spans.size(); ++i) {
    chain.clear();
    std::uint32_t s = i;
    while (s != kNoIndex && !resolved[s] && spans[s].category != category) {
      chain.push_back(s);
      s = spans[s].parent;
    }
    const std::uint32_t rep = s == kNoIndex ? kNone : repetition_of[s];
    for (std::uint32_t c : chain) {
      repetition_of[c] = rep;
      resolved[c] = true;
    }
    if (s != kNoIndex) resolved[s] = true;
  }
  std::vector<std::vector<std::uint32_t>> members(roots.size());
  for (std::uint32_t i = 0; i < spans.size(); ++i) {
    if (repetition_of[i] != kNone) members[repetition_of[i]].push_back(i);
  }
  attribution::TreeInputs inputs;
  inputs.timeline = &timeline;
  inputs.split_passes = result.split_passes;
  for (const ChannelAttribution& c : result.per_channel) {
    attribution::ChannelFigures f;
    f.channel = &c;
    f.top_level = c.top_level;
    inputs.channels.push_back(f);
  }
  std::vector<ProfileNode> trees;
  trees.reserve(roots.size());
  for (std::size_t r = 0; r < roots.size(); ++r) {
    ProfileNode tree = attribution::build_span_tree(
        inputs, members[r], roots[r], collapse_index_name(timeline.name(spans[roots[r]].name)));
    attribution::roll_up(tree);
    trees.push_back(std::move(tree));
  }
  return trees;
}

ProfileNode combine_repetitions(const std::vector<ProfileNode>& repetitions) {
  if (repetitions.empty()) return ProfileNode{};
  ProfileNode mean = repetitions.front();
  mean.children.clear();
  mean.energy_j = mean.self_energy_j = 0.0;
  mean.time_ns = mean.self_time_ns = 0;
  mean.calls = 0;
  mean.static_energy_j.reset();
  mean.dynamic_energy_j.reset();
  mean.energy_by_channel_j.clear();
  if (mean.band) mean.band = EnergyBand{0.0, 0.0, mean.band->dominant};
  std::map<std::string, std::vector<double>> values;
  std::vector<double> root_values;
  for (const ProfileNode& r : repetitions) {
    merge_into(mean, r);
    root_values.push_back(r.energy_j);
  }
  for (std::size_t k = 0; k < repetitions.size(); ++k) {
    std::map<std::string, double> paths;
    collect_paths(repetitions[k], paths);
    for (const auto& [p, e] : paths) {
      auto& v = values[p];
      v.resize(k, 0.0);  // absent from earlier repetitions: 0 J there
      v.push_back(e);
    }
  }
  for (auto& [p, v] : values) v.resize(repetitions.size(), 0.0);
  const double n = static_cast<double>(repetitions.size());
  scale_tree(mean, 1.0 / n);
  mean.energy_stats = summarize(root_values);
  apply_stats(mean, values);
  widen_by_repetition(mean);
  return mean;
}

std::optional<double> run_agreement(const ProfileNode& a, const ProfileNode& b) {
  std::map<std::string, double> pa;
  std::map<std::string, double> pb;
  collect_paths(a, pa);
  collect_paths(b, pb);
  for (const auto& [p, e] : pa) pb.emplace(p, 0.0);
  for (const auto& [p, e] : pb) pa.emplace(p, 0.0);
  std::vector<double> xa;
  std::vector<double> xb;
  for (const auto& [p, e] : pa) {
    xa.push_back(e);
    xb.push_back(pb[p]);
  }
  return pearson_r(xa, xb);
}

}  // namespace jouleprof
