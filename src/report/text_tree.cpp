#include "report/text_tree.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace jouleprof::report {

namespace {

std::size_t display_width(const std::string& s) {
  // UTF-8: count code points, not bytes, so the tree glyphs line up.
  return static_cast<std::size_t>(std::count_if(
      s.begin(), s.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

struct Collector {
  const TextTreeOptions& options;
  double root_energy_j;
  std::vector<std::vector<std::string>> rows;
};

void collect(const ProfileNode& node, double parent_energy_j, const std::string& prefix,
             const std::string& branch, int depth, Collector& out) {
  const TextTreeOptions& options = out.options;
  const double of_parent = parent_energy_j != 0.0 ? node.energy_j / parent_energy_j : 1.0;
  const double share = out.root_energy_j != 0.0 ? node.energy_j / out.root_energy_j : 1.0;
  std::vector<std::string> row;
  row.push_back(prefix + branch + node.name);
  row.push_back(fmt::format("{:.4g}", node.energy_j));
  row.push_back(fmt::format("{:.1f}%", 100.0 * share));
  row.push_back(depth == 0 ? "" : fmt::format("{:.1f}%", 100.0 * of_parent));
  row.push_back(node.time_ns > 0 ? fmt::format("{:.1f}", node.mean_power_w()) : "");
  row.push_back(fmt::format("{:.3f}", static_cast<double>(node.time_ns) / 1e6));
  row.push_back(std::to_string(node.calls));
  row.push_back(std::string(to_string(node.provenance)));
  out.rows.push_back(std::move(row));
  if (options.max_depth >= 0 && depth >= options.max_depth) return;

  std::vector<const ProfileNode*> shown;
  for (const ProfileNode& c : node.children) {
    const double child_share = node.energy_j != 0.0 ? c.energy_j / node.energy_j : 0.0;
    if (child_share >= options.min_share) shown.push_back(&c);
  }
  std::stable_sort(shown.begin(), shown.end(), [](const ProfileNode* a, const ProfileNode* b) {
    return a->energy_j > b->energy_j;
  });
  const std::size_t hidden = node.children.size() - std::min(shown.size(), options.max_children);
  if (shown.size() > options.max_children) shown.resize(options.max_children);
  const std::string child_prefix = depth == 0 ? "" : prefix + (branch == "└─ " ? "   " : "│  ");
  for (std::size_t i = 0; i < shown.size(); ++i) {
    const bool last = i + 1 == shown.size() && hidden == 0;
    collect(*shown[i], node.energy_j, child_prefix, last ? "└─ " : "├─ ", depth + 1, out);
  }
  if (hidden > 0) out.rows.push_back({child_prefix + "└─ " + fmt::format("({} more)", hidden)});
}

}  // namespace

std::string format_text_table(const std::vector<std::string>& header,
                              const std::vector<std::vector<std::string>>& rows) {
  std::vector<std::size_t> width(header.size(), 0);
  for (std::size_t c = 0; c < header.size(); ++c) width[c] = display_width(header[c]);
  for (const auto& row : rows) {
    for (std::size_t c = 0; c < row.size() && c < width.size(); ++c)
      width[c] = std::max(width[c], display_width(row[c]));
  }
  std::string out;
  const auto emit = [&](const std::vector<std::string>& row) {
    std::string line;
    for (std::size_t c = 0; c < width.size(); ++c) {
      const std::string cell = c < row.size() ? row[c] : "";
      const std::string pad(width[c] - std::min(width[c], display_width(cell)), ' ');
      if (c > 0) line += "  ";
      line += c == 0 ? cell + pad : pad + cell;
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + '\n';
  };
  emit(header);
  for (const auto& row : rows) emit(row);
  return out;
}

std::string format_profile_tree(const ProfileNode& root, const TextTreeOptions& options) {
  Collector out{options, root.energy_j, {}};
  collect(root, 0.0, "", "", 0, out);
  if (out.rows.size() > options.max_rows) {
    const std::size_t hidden = out.rows.size() - options.max_rows;
    out.rows.resize(options.max_rows);
    out.rows.push_back({fmt::format("({} more rows)", hidden)});
  }
  return format_text_table(
      {"node", "energy J", "share", "% of parent", "power W", "time ms", "calls", "provenance"},
      out.rows);
}

}  // namespace jouleprof::report
