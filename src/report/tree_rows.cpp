#include "report/tree_rows.hpp"

namespace jouleprof::report {
namespace {

void visit(const ProfileNode& node, const std::string& parent_path, int depth, double root_energy,
           std::vector<TreeRow>& rows) {
  std::string path = parent_path.empty() ? node.name : parent_path + "/" + node.name;
  const double share = root_energy > 0.0 ? node.energy_j / root_energy : 0.0;
  rows.push_back(TreeRow{&node, path, depth, share});
  for (const ProfileNode& child : node.children) visit(child, path, depth + 1, root_energy, rows);
}

}  // namespace

std::vector<TreeRow> flatten_tree(const ProfileNode& root) {
  std::vector<TreeRow> rows;
  visit(root, "", 0, root.energy_j, rows);
  return rows;
}

}  // namespace jouleprof::report
