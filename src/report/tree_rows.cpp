#include "report/tree_rows.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

namespace jouleprof::report {
namespace {

bool is_operator(SpanCategory c) {
  return c == SpanCategory::kOp || c == SpanCategory::kKernel || c == SpanCategory::kCall ||
         c == SpanCategory::kMemory;
}

void collect(const ProfileNode& root, bool leaves_only, std::map<std::string, OperatorTotal>& out) {
  walk_tree(root, [&](const ProfileNode& node, int) {
    const bool take = leaves_only ? node.children.empty() : is_operator(node.category);
    if (!take) return true;
    auto [it, inserted] = out.try_emplace(node.name);
    OperatorTotal& total = it->second;
    if (inserted) {
      total.name = node.name;
      total.category = node.category;
      total.provenance = node.provenance;
    } else if (total.provenance != node.provenance) {
      total.mixed_provenance = true;
    }
    // Inclusive energy of an operator; nested operators of the same name (rare) are not
    // descended into, so nothing is counted twice.
    total.energy_j += node.energy_j;
    total.time_ns += node.time_ns;
    total.calls += node.calls;
    return leaves_only;
  });
}

}  // namespace

std::string tree_path(const std::vector<const std::string*>& names) {
  std::string path;
  std::size_t first = 0;
  if (names.size() > kMaxPathLevels) {
    first = names.size() - kMaxPathLevels;
    path = fmt::format("…{} levels…", first);
  }
  for (std::size_t i = first; i < names.size(); ++i) {
    if (!path.empty()) path += '/';
    path += *names[i];
  }
  return path;
}

std::vector<TreeRow> flatten_tree(const ProfileNode& root, bool with_paths) {
  std::vector<TreeRow> rows;
  std::vector<const std::string*> chain;  // the names from the root to the node visited
  walk_tree(root, [&](const ProfileNode& node, int depth) {
    const double share = root.energy_j > 0.0 ? node.energy_j / root.energy_j : 0.0;
    std::string path;
    if (with_paths) {
      chain.resize(static_cast<std::size_t>(depth));
      chain.push_back(&node.name);
      path = tree_path(chain);
    }
    rows.push_back(TreeRow{&node, std::move(path), depth, share});
  });
  return rows;
}

std::vector<OperatorTotal> top_operators(const ProfileNode& root, std::size_t limit) {
  std::map<std::string, OperatorTotal> by_name;
  collect(root, false, by_name);
  if (by_name.empty()) collect(root, true, by_name);
  std::vector<OperatorTotal> totals;
  totals.reserve(by_name.size());
  for (auto& [name, total] : by_name) totals.push_back(std::move(total));
  std::stable_sort(
      totals.begin(), totals.end(),
      [](const OperatorTotal& a, const OperatorTotal& b) { return a.energy_j > b.energy_j; });
  if (totals.size() > limit) totals.resize(limit);
  return totals;
}

}  // namespace jouleprof::report
