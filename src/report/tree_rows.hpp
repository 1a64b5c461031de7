// The breakdown tree as rows in pre-order, each with its full path: what the CSV, text, HTML and
// the run history list.
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

// Operators (category op, kernel, call or memory) summed by name, largest energy first; when the
// tree holds none of these, its leaves are used instead.
struct OperatorTotal {
  std::string name;
  SpanCategory category = SpanCategory::kOp;
  double energy_j = 0.0;
  TimeNs time_ns = 0;
  std::uint64_t calls = 0;
  Provenance provenance = Provenance::kMeasured;
  bool mixed_provenance = false;  // rows with this name disagree on provenance
};
std::vector<OperatorTotal> top_operators(const ProfileNode& root, std::size_t limit);

}  // namespace jouleprof::report
