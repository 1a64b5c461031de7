// Plain-text rendering of a profile tree and of simple tables, for terminals and logs.
//
//   std::cout << format_profile_tree(tree, {.max_depth = 3});
//
// Columns: energy (J), share (of the root's energy, as in every report), % of the parent's
// energy, mean power (W), time (ms), calls, provenance.
#pragma once

#include <cstddef>
#include <limits>
#include <string>
#include <vector>

#include "jouleprof/profile.hpp"

namespace jouleprof::report {

struct TextTreeOptions {
  int max_depth = -1;      // levels below the root to show; -1 = all
  double min_share = 0.0;  // hide nodes below this share of their parent (0..1)
  std::size_t max_children = std::numeric_limits<std::size_t>::max();  // per node, largest first
  std::size_t max_rows = std::numeric_limits<std::size_t>::max();      // then "(N more rows)"
};

std::string format_profile_tree(const ProfileNode& root, const TextTreeOptions& options = {});

// A fixed-width table: the first column left-aligned, the others right-aligned.
std::string format_text_table(const std::vector<std::string>& header,
                              const std::vector<std::vector<std::string>>& rows);

}  // namespace jouleprof::report
