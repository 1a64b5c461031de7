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

// Guides a level, up to this depth; deeper rows keep the last guide width and say their depth.
constexpr int kMaxGuideLevels = 40;

// One row to emit: a node, or the "(N more)" line after a node's shown children.
struct Item {
  const ProfileNode* node = nullptr;  // null: a "more" line
  double parent_energy_j = 0.0;
  std::string prefix;
  std::string branch;
  int depth = 0;
  std::size_t hidden = 0;
};

void collect(const ProfileNode& root, const TextTreeOptions& options,
             std::vector<std::vector<std::string>>& rows) {
  std::vector<Item> pending;
  pending.push_back(Item{&root, 0.0, "", "", 0, 0});
  while (!pending.empty()) {
    Item item = std::move(pending.back());
    pending.pop_back();
    if (item.node == nullptr) {
      rows.push_back({item.prefix + "└─ " + fmt::format("({} more)", item.hidden)});
      continue;
    }
    const ProfileNode& node = *item.node;
    const int depth = item.depth;
    const double share = item.parent_energy_j != 0.0 ? node.energy_j / item.parent_energy_j : 1.0;
    std::vector<std::string> row;
    const std::string marker = depth > kMaxGuideLevels ? fmt::format("[depth {}] ", depth) : "";
    row.push_back(item.prefix + item.branch + marker + node.name);
    row.push_back(fmt::format("{:.4g}", node.energy_j));
    row.push_back(depth == 0 ? "" : fmt::format("{:.1f}%", 100.0 * share));
    row.push_back(node.time_ns > 0 ? fmt::format("{:.1f}", node.mean_power_w()) : "");
    row.push_back(fmt::format("{:.3f}", static_cast<double>(node.time_ns) / 1e6));
    row.push_back(std::to_string(node.calls));
    row.push_back(std::string(to_string(node.provenance)));
    rows.push_back(std::move(row));
    if (options.max_depth >= 0 && depth >= options.max_depth) continue;

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
    const std::string child_prefix = depth == 0 ? ""
                                     : depth >= kMaxGuideLevels
                                         ? item.prefix
                                         : item.prefix + (item.branch == "└─ " ? "   " : "│  ");
    // Pushed in reverse, so that they come off the stack in order.
    if (hidden > 0) pending.push_back(Item{nullptr, 0.0, child_prefix, "", depth + 1, hidden});
    for (std::size_t i = shown.size(); i-- > 0;) {
      const bool last = i + 1 == shown.size() && hidden == 0;
      pending.push_back(
          Item{shown[i], node.energy_j, child_prefix, last ? "└─ " : "├─ ", depth + 1, 0});
    }
  }
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
  std::vector<std::vector<std::string>> rows;
  collect(root, options, rows);
  return format_text_table(
      {"node", "energy J", "share", "power W", "time ms", "calls", "provenance"}, rows);
}

}  // namespace jouleprof::report
