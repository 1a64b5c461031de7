#include "report/tree_rows.hpp"

#include <algorithm>
#include <map>

namespace jouleprof::report {
namespace {

void visit(const ProfileNode& node, const std::string& parent_path, int depth, double root_energy,
           std::vector<TreeRow>& rows) {
  std::string path = parent_path.empty() ? node.name : parent_path + "/" + node.name;
  const double share = root_energy > 0.0 ? node.energy_j / root_energy : 0.0;
  rows.push_back(TreeRow{&node, path, depth, share});
  for (const ProfileNode& child : node.children) visit(child, path, depth + 1, root_energy, rows);
}

bool is_operator(SpanCategory c) {
  return c == SpanCategory::kOp || c == SpanCategory::kKernel || c == SpanCategory::kCall ||
         c == SpanCategory::kMemory;
}

void collect(const ProfileNode& node, bool leaves_only, std::map<std::string, OperatorTotal>& out) {
  const bool take = leaves_only ? node.children.empty() : is_operator(node.category);
  if (take) {
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
    if (!leaves_only) return;
  }
  for (const ProfileNode& child : node.children) collect(child, leaves_only, out);
}

}  // namespace

std::vector<TreeRow> flatten_tree(const ProfileNode& root) {
  std::vector<TreeRow> rows;
  visit(root, "", 0, root.energy_j, rows);
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
