// The breakdown tree as rows in pre-order, each with its full path: what the CSV, text, HTML and
// the run history list. (The top operators of every output are jouleprof::top_operators.)
#pragma once

#include <string>
#include <vector>

#include "jouleprof/profile.hpp"

namespace jouleprof::report {

struct TreeRow {
  const ProfileNode* node = nullptr;
  std::string path;    // names from the root, joined by '/'
  int depth = 0;       // 0 = root
  double share = 0.0;  // node energy / root energy (0 when the root has none)
};

// Pre-order (parent before children, children in their stored order).
std::vector<TreeRow> flatten_tree(const ProfileNode& root);

}  // namespace jouleprof::report
