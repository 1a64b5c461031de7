#include "jouleprof/profile.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>

#include "core/figure_bounds.hpp"
#include "core/unread_channel.hpp"

namespace jouleprof {

ProfileNode::ProfileNode(const ProfileNode& other) : ProfileNodeFigures(other) {
  std::vector<std::pair<ProfileNode*, const ProfileNode*>> pending{{this, &other}};
  while (!pending.empty()) {
    const auto [to, from] = pending.back();
    pending.pop_back();
    // Sized once: the children stay where they are while their own subtrees are copied.
    to->children.resize(from->children.size());
    for (std::size_t i = 0; i < from->children.size(); ++i) {
      static_cast<ProfileNodeFigures&>(to->children[i]) = from->children[i];
      pending.emplace_back(&to->children[i], &from->children[i]);
    }
  }
}

ProfileNode& ProfileNode::operator=(const ProfileNode& other) {
  if (this != &other) *this = ProfileNode(other);
  return *this;
}

ProfileNode::~ProfileNode() {
  // Children are moved out level by level, so no node is destroyed while it still has children.
  std::vector<ProfileNode> pending = std::move(children);
  while (!pending.empty()) {
    ProfileNode last = std::move(pending.back());
    pending.pop_back();
    for (ProfileNode& c : last.children) pending.push_back(std::move(c));
    last.children.clear();
  }
}

const ProfileNode* ProfileNode::child(std::string_view child_name) const {
  for (const ProfileNode& c : children) {
    if (c.name == child_name) return &c;
  }
  return nullptr;
}

ProfileNode* ProfileNode::child(std::string_view child_name) {
  for (ProfileNode& c : children) {
    if (c.name == child_name) return &c;
  }
  return nullptr;
}

namespace {

// Said in words: a warning that prints "inf" or "nan" is what it warns of.
std::string_view non_finite_name(double value) {
  if (std::isnan(value)) return "not a number";
  return "infinite";
}

}  // namespace

std::vector<std::string> figure_problems(const Profile& profile) {
  constexpr std::size_t kNamed = 3;  // nodes named per problem; the rest are counted
  struct Problem {
    std::size_t count = 0;
    std::vector<std::string> examples;
    void add(std::string example) {
      if (count++ < kNamed) examples.push_back(std::move(example));
    }
  };
  const bool may_go_negative =
      std::any_of(profile.series.begin(), profile.series.end(),
                  [](const Series& s) { return s.channel().domain == "battery"; });
  Problem oversubscribed;
  Problem not_finite;
  Problem beyond_bounds;
  Problem never_read;
  Problem negative;
  if (profile.tree) {
    std::vector<const std::string*> chain;
    const auto path = [&] {
      std::string text;
      for (const std::string* name : chain) text += (text.empty() ? "" : "/") + *name;
      return text;
    };
    walk_tree(*profile.tree, [&](const ProfileNode& node, int depth) {
      chain.resize(static_cast<std::size_t>(depth));
      chain.push_back(&node.name);
      if (!std::isfinite(node.energy_j) || !std::isfinite(node.self_energy_j)) {
        not_finite.add(fmt::format("{} ({})", path(), non_finite_name(node.energy_j)));
        return;
      }
      if (!plausible(FigureKind::kEnergyChange, node.energy_j) ||
          !plausible(FigureKind::kEnergyChange, node.self_energy_j)) {
        beyond_bounds.add(path());
        return;
      }
      if (!may_go_negative && node.energy_j < 0.0) {
        negative.add(fmt::format("{} ({} J)", path(), node.energy_j));
      }
      double children_j = 0.0;
      for (const ProfileNode& c : node.children) children_j += c.energy_j;
      const double tolerance_j = 1e-6 * std::fabs(node.energy_j) + 1e-9;
      if (!node.children.empty() && std::isfinite(children_j) &&
          children_j > node.energy_j + tolerance_j) {
        oversubscribed.add(
            fmt::format("{} ({:.6g} J, its children {:.6g} J)", path(), node.energy_j, children_j));
      }
    });
  }
  for (const ChannelSummary& c : profile.channels) {
    if (!std::isfinite(c.energy_j) || !std::isfinite(c.mean_power_w)) {
      not_finite.add(
          fmt::format("channel {} ({})", c.channel_id,
                      non_finite_name(std::isfinite(c.energy_j) ? c.mean_power_w : c.energy_j)));
    } else if (!plausible(FigureKind::kEnergyChange, c.energy_j) ||
               !plausible(FigureKind::kPowerChange, c.mean_power_w)) {
      beyond_bounds.add(fmt::format("channel {}", c.channel_id));
    }
    if (has_no_reading(profile, c)) never_read.add(c.channel_id);
  }
  std::vector<std::string> warnings;
  const auto report = [&](const Problem& p, std::string_view what) {
    if (p.count == 0) return;
    std::string text = fmt::format("{} {}: {}", p.count, what, fmt::join(p.examples, "; "));
    if (p.count > p.examples.size()) text += fmt::format("; and {} more", p.count - kNamed);
    warnings.push_back(std::move(text));
  };
  report(oversubscribed,
         "tree node(s) whose children hold more energy than the node (the tree does not sum, so "
         "shares exceed 100 %)");
  report(not_finite, "energy figure(s) that are not finite numbers");
  report(beyond_bounds,
         fmt::format("energy figure(s) beyond the {:g} J any run can consume ({}), shown as "
                     "invalid",
                     bound_of(FigureKind::kEnergy).max, bound_of(FigureKind::kEnergy).why));
  report(negative,
         "negative energy figure(s) although no channel of this profile may go "
         "negative");
  report(never_read,
         "channel(s) with no reading at all (every read failed, see the warnings): their 0 J "
         "measures nothing and is shown as invalid");
  return warnings;
}

const Series* Profile::find_series(std::string_view channel_id) const {
  for (const Series& s : series) {
    if (s.channel().id == channel_id) return &s;
  }
  return nullptr;
}

double Profile::total_energy_j() const {
  double total = 0.0;
  for (const ChannelSummary& c : channels) {
    const Series* s = find_series(c.channel_id);
    const bool top_level = s == nullptr || s->channel().is_top_level();
    if (top_level) total += c.energy_j;
  }
  return total;
}

std::optional<double> Profile::total_process_energy_j() const {
  std::optional<double> total;
  for (const ChannelSummary& c : channels) {
    const Series* s = find_series(c.channel_id);
    const bool top_level = s == nullptr || s->channel().is_top_level();
    if (top_level && c.process) total = total.value_or(0.0) + c.process->energy_j;
  }
  return total;
}

Provenance Profile::total_provenance() const {
  std::optional<Provenance> least_direct;
  for (const ChannelSummary& c : channels) {
    const Series* s = find_series(c.channel_id);
    if (s != nullptr && !s->channel().is_top_level()) continue;
    least_direct = least_direct ? less_direct(*least_direct, c.provenance) : c.provenance;
  }
  if (least_direct) return *least_direct;
  return tree ? tree->provenance : Provenance::kMeasured;
}

std::optional<EnergyBand> Profile::total_energy_band() const {
  double below = 0.0;  // sums of squares of each channel's distance to its interval's ends
  double above = 0.0;
  double widest = -1.0;
  bool any = false;
  EnergyBand band;
  for (const ChannelSummary& c : channels) {
    const Series* s = find_series(c.channel_id);
    if (s != nullptr && !s->channel().is_top_level()) continue;
    if (!c.band) return std::nullopt;  // a total with an unbounded part has no interval
    any = true;
    below += (c.energy_j - c.band->low_j) * (c.energy_j - c.band->low_j);
    above += (c.band->high_j - c.energy_j) * (c.band->high_j - c.energy_j);
    if (c.band->half_width_j() > widest) {
      widest = c.band->half_width_j();
      band.dominant = c.band->dominant;
    }
  }
  if (!any) return tree ? tree->band : std::nullopt;
  const double total = total_energy_j();
  band.low_j = total - std::sqrt(below);
  band.high_j = total + std::sqrt(above);
  return band;
}

}  // namespace jouleprof
