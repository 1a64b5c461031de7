#include "report/tree_rows.hpp"

#include <fmt/format.h>

namespace jouleprof::report {

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

}  // namespace jouleprof::report
