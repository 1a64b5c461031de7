// The breakdown tree as rows in pre-order, each with its full path: what the CSV, text, HTML and
// the run history list. (The top operators of every output are jouleprof::top_operators.)
#pragma once

#include <string>
#include <vector>

#include "jouleprof/profile.hpp"

namespace jouleprof::report {

// Paths name at most this many levels: deeper nodes' paths begin "…N levels…/" and name the last
// ones, so that a pathologically deep tree costs linear, not quadratic, memory and output.
inline constexpr std::size_t kMaxPathLevels = 64;

struct TreeRow {
  const ProfileNode* node = nullptr;
  std::string path;    // names from the root, joined by '/' (see kMaxPathLevels)
  int depth = 0;       // 0 = root
  double share = 0.0;  // node energy / root energy (0 when the root has none)
};

// Pre-order (parent before children, children in their stored order). Without `with_paths` the
// rows' paths stay empty.
std::vector<TreeRow> flatten_tree(const ProfileNode& root, bool with_paths = true);

// The names joined by '/', the first ones elided beyond kMaxPathLevels.
std::string tree_path(const std::vector<const std::string*>& names);

}  // namespace jouleprof::report
