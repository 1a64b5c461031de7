#include "attribution/step_energy.hpp"

#include <fmt/format.h>

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "jouleprof/statistics.hpp"

namespace jouleprof::attribution {

namespace {

// Every node below `root` by its path ("/a/b"), with a visit of each.
template <typename Node, typename Visit>
void walk_paths(Node& root, Visit&& visit) {
  std::vector<std::pair<Node*, std::string>> pending;
  for (auto& c : root.children) pending.emplace_back(&c, "/" + c.name);
  while (!pending.empty()) {
    auto [node, path] = std::move(pending.back());
    pending.pop_back();
    visit(*node, path);
    for (auto& c : node->children) pending.emplace_back(&c, path + "/" + c.name);
  }
}

// The tree's one node of steps named `name`; null when there is none or more than one (steps
// under different parents, whose spread would mix).
ProfileNode* step_node(ProfileNode& tree, const std::string& name) {
  ProfileNode* found = nullptr;
  std::size_t count = 0;
  walk_tree(tree, [&](ProfileNode& node, int) {
    if (node.category != SpanCategory::kStep || node.name != name) return true;
    found = &node;
    ++count;
    return false;  // a step inside a step is part of it
  });
  return count == 1 ? found : nullptr;
}

void copy_spread(const ProfileNode& mean, ProfileNode& node) {
  node.energy_stats = mean.energy_stats;
  std::map<std::string, RepetitionStats> by_path;
  walk_paths(mean, [&](const ProfileNode& n, const std::string& path) {
    if (n.energy_stats) by_path.emplace(path, *n.energy_stats);
  });
  walk_paths(node, [&](ProfileNode& n, const std::string& path) {
    const auto it = by_path.find(path);
    if (it != by_path.end()) n.energy_stats = it->second;
  });
}

}  // namespace

void summarize_steps(Profile& profile, const AttributionResult& result) {
  profile.energy_per_step.reset();
  if (!profile.tree) return;
  const std::vector<ProfileNode> steps = trees_per_repetition(result, profile.timeline);
  if (steps.size() < 2) return;
  // Steps of two kinds (a training and an evaluation step) have no one mean.
  for (const ProfileNode& s : steps) {
    if (s.name != steps.front().name) return;
  }
  if (ProfileNode* node = step_node(*profile.tree, steps.front().name); node != nullptr)
    copy_spread(combine_repetitions(steps), *node);

  // The steps' sum has its attribution interval: the same weights split every step's windows, the
  // same counter lags behind each, so that interval, over the steps, repeats alike in each. Its
  // missing energy (gaps) shifts the mean's interval as it shifts the sum's.
  std::vector<double> per_step_j;
  std::optional<EnergyBand> sum_band;
  double sum_j = 0.0;
  for (const ProfileNode& step : steps) {
    per_step_j.push_back(step.energy_j);
    sum_j += step.energy_j;
    if (!step.band) return;
    sum_band = sum_band ? add_correlated_bands(*sum_band, *step.band) : *step.band;
  }
  const double n = static_cast<double>(steps.size());
  const double shift_j = 0.5 * (sum_band->low_j + sum_band->high_j) - sum_j;
  const UncertaintyPart shared{sum_band->dominant, sum_band->half_width_j() / n, shift_j / n,
                               shift_j / n};
  profile.energy_per_step =
      RepeatedEnergy{summarize(per_step_j), repeated_band(per_step_j, {&shared, 1}, {})};
  if (steps.size() < kFewSteps) {
    profile.warnings.push_back(fmt::format(
        "only {} steps: the energy per step's 95 % interval rests on their spread with {} degrees "
        "of freedom (Student-t factor {:.3g} against 1.96 for many), so it is wide; record at "
        "least "
        "{} steps (profile --steps, or more steps in the run)",
        steps.size(), steps.size() - 1, student_t_95(static_cast<unsigned>(steps.size() - 1)),
        kFewSteps));
  }
}

}  // namespace jouleprof::attribution
