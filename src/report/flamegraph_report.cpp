// The `flamegraph` report: an SVG energy flame graph of the breakdown tree. Each frame's width is
// its inclusive energy, the root at the bottom spanning the full width; children sit on their
// parent left to right in stored order, the parent's self energy is the uncovered rest. Colours
// say the category; every frame has a hover <title> with energy, share, time, calls and
// provenance. With a baseline it becomes a differential flame graph: widths from this profile,
// colour by the change of each node's energy against the same path in the baseline (red = more
// energy, blue = less, white = unchanged; intensity ∝ relative change, saturating at ±100 %).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>

#include "core/quantity_text.hpp"
#include "report/markup.hpp"
#include "report/text_layout.hpp"
#include "report/tree_rows.hpp"
#include "report/writers.hpp"

namespace jouleprof::report {
namespace {

constexpr double kWidthPx = 1200.0;
constexpr double kRowPx = 18.0;
constexpr double kHeaderPx = 52.0;
constexpr double kFooterPx = 34.0;
constexpr double kMinFramePx = 0.1;  // narrower frames are not drawn (and their subtree neither)
constexpr double kCharPx = 7.0;      // approximate advance of a 12 px monospace glyph

struct FlameLayout {
  const ProfileNode* node;
  std::string relative_path;  // without the root's name, so two runs' roots always match
  int depth;
  double x_px;
  double width_px;
};

// Frames in pre-order, children left to right within their parent (a heap stack, not recursion).
void lay_out(const ProfileNode& root, double width, std::vector<FlameLayout>& out) {
  struct Pending {
    const ProfileNode* node;
    int depth;
    double x;
    double width;
  };
  std::vector<Pending> pending{{&root, 0, 0.0, width}};
  std::vector<const std::string*> chain;  // names below the root down to the node
  while (!pending.empty()) {
    const Pending p = pending.back();
    pending.pop_back();
    if (p.width < kMinFramePx) continue;
    chain.resize(static_cast<std::size_t>(std::max(0, p.depth - 1)));
    if (p.depth > 0) chain.push_back(&p.node->name);
    out.push_back({p.node, tree_path(chain), p.depth, p.x, p.width});
    const ProfileNode& node = *p.node;
    double children_j = 0.0;
    for (const ProfileNode& c : node.children) children_j += std::max(0.0, c.energy_j);
    // Children never draw wider than their parent, even if rounding made them sum to more.
    const double scale = node.energy_j > 0.0 ? p.width / std::max(node.energy_j, children_j) : 0.0;
    const std::size_t first = pending.size();
    double cursor = p.x;
    for (const ProfileNode& c : node.children) {
      const double w = std::max(0.0, c.energy_j) * scale;
      pending.push_back({&c, p.depth + 1, cursor, w});
      cursor += w;
    }
    std::reverse(pending.begin() + static_cast<std::ptrdiff_t>(first), pending.end());
  }
}

// By the same relative paths as lay_out gives its frames.
std::map<std::string, double> energy_by_relative_path(const ProfileNode& root) {
  std::map<std::string, double> out;
  std::vector<const std::string*> chain;
  walk_tree(root, [&](const ProfileNode& node, int depth) {
    chain.resize(static_cast<std::size_t>(std::max(0, depth - 1)));
    if (depth > 0) chain.push_back(&node.name);
    out[tree_path(chain)] += node.energy_j;
  });
  return out;
}

// White → red (more) or white → blue (less).
std::string diff_colour(double relative_change) {
  const double t = std::clamp(std::fabs(relative_change), 0.0, 1.0);
  const auto fade = static_cast<int>(std::lround(255.0 * (1.0 - 0.8 * t)));
  return relative_change >= 0.0 ? fmt::format("rgb(255,{},{})", fade, fade)
                                : fmt::format("rgb({},{},255)", fade, fade);
}

constexpr std::size_t kMaxWarningLines = 8;
constexpr double kWarningLinePx = 16.0;

// The profile's warnings as lines that fit the picture's width ("warning: " and a hanging indent),
// at most kMaxWarningLines of them, the last saying how many more the profile holds.
std::vector<std::string> warning_lines_within_width(const std::vector<std::string>& warnings) {
  const auto columns = static_cast<std::size_t>((kWidthPx - 16.0) / kCharPx);
  std::vector<std::string> lines;
  std::size_t shown = 0;
  for (const std::string& w : warnings) {
    const std::string wrapped = wrap_text(w, columns, "warning: ", "  ");
    std::vector<std::string> these;
    for (std::size_t at = 0; at < wrapped.size();) {
      const std::size_t end = wrapped.find('\n', at);
      these.push_back(wrapped.substr(at, end - at));
      at = end == std::string::npos ? wrapped.size() : end + 1;
    }
    if (lines.size() + these.size() > kMaxWarningLines - 1 && shown > 0) break;
    lines.insert(lines.end(), these.begin(), these.end());
    ++shown;
  }
  if (lines.size() > kMaxWarningLines) lines.resize(kMaxWarningLines - 1);
  if (shown < warnings.size()) {
    lines.push_back(
        fmt::format("… and {} more warning(s) in the profile", warnings.size() - shown));
  }
  return lines;
}

std::string frame_label(const std::string& name, double width_px) {
  const auto fits = static_cast<std::size_t>((width_px - 6.0) / kCharPx);
  if (fits < 3) return {};
  if (name.size() <= fits) return name;
  return name.substr(0, fits - 2) + "..";
}

}  // namespace

Result<std::string> write_flamegraph(const Profile& profile, const ReportOptions& options) {
  if (!profile.tree) {
    return Error(ErrorCode::kInvalidInput,
                 "profile has no breakdown tree (field 'tree' is empty): attribute it first");
  }
  const Profile* baseline = options.baseline;
  if (baseline != nullptr && !baseline->tree) {
    return Error(ErrorCode::kInvalidInput,
                 "baseline profile has no breakdown tree (field 'tree' is empty)");
  }
  const ProfileNode& root = *profile.tree;
  std::vector<FlameLayout> frames;
  lay_out(root, kWidthPx, frames);
  int depth = 0;
  for (const FlameLayout& f : frames) depth = std::max(depth, f.depth);
  // The profile's warnings (the first few) go under the legend: a figure that cannot be trusted
  // says so in the picture too.
  const std::vector<std::string> warning_text = warning_lines_within_width(profile.warnings);
  const std::size_t warning_lines = warning_text.size();
  const double height = kHeaderPx + (depth + 1) * kRowPx + kFooterPx +
                        static_cast<double>(warning_lines) * kWarningLinePx;

  std::map<std::string, double> before;
  if (baseline != nullptr) before = energy_by_relative_path(*baseline->tree);

  std::ostringstream svg;
  svg << R"(<?xml version="1.0" encoding="UTF-8"?>)" << '\n'
      << fmt::format(R"(<svg xmlns="http://www.w3.org/2000/svg" width="{:.0f}" height="{:.0f}" )"
                     R"(viewBox="0 0 {:.0f} {:.0f}" font-family="monospace" font-size="12">)",
                     kWidthPx, height, kWidthPx, height)
      << '\n';
  svg << fmt::format(
             R"(<rect class="background" x="0" y="0" width="{:.0f}" height="{:.0f}" fill="#fdfdfd"/>)",
             kWidthPx, height)
      << '\n';
  const std::string title =
      baseline != nullptr ? "Differential energy flame graph" : "Energy flame graph";
  svg << fmt::format(
             R"(<text class="title" x="{:.0f}" y="20" text-anchor="middle" font-size="16">{}</text>)",
             kWidthPx / 2, title)
      << '\n';
  std::string subtitle = fmt::format("{} total, width = energy", format_energy(root.energy_j));
  if (baseline != nullptr) {
    const double b = baseline->tree->energy_j;
    subtitle += fmt::format("; baseline {} ({:+.1f} %); red = more energy, blue = less",
                            format_energy(b), b > 0.0 ? 100.0 * (root.energy_j - b) / b : 0.0);
  }
  svg << fmt::format(R"(<text class="subtitle" x="{:.0f}" y="40" text-anchor="middle">{}</text>)",
                     kWidthPx / 2, xml_escape(subtitle))
      << '\n';

  for (const FlameLayout& f : frames) {
    const ProfileNode& n = *f.node;
    const double y = kHeaderPx + (depth - f.depth) * kRowPx;
    const double share = root.energy_j > 0.0 ? n.energy_j / root.energy_j : 0.0;
    std::string tip =
        fmt::format("{}\n{} ({} of total), self {}\ntime {}, {} calls, {}", n.name,
                    format_energy(n.energy_j), format_share(share), format_energy(n.self_energy_j),
                    format_duration(n.time_ns), n.calls, to_string(n.provenance));
    if (n.band) {
      tip += fmt::format("\n95 % interval {} … {} ({}, mostly {})", format_energy(n.band->low_j),
                         format_energy(n.band->high_j), format_uncertainty(n.band, n.energy_j),
                         to_string(n.band->dominant));
    }
    std::string fill(category_colour(n.category));
    if (baseline != nullptr) {
      auto it = before.find(f.relative_path);
      if (it == before.end()) {
        tip += "\nnew: not in the baseline";
        fill = diff_colour(1.0);
      } else {
        const double delta = n.energy_j - it->second;
        const double relative = it->second > 0.0 ? delta / it->second : (delta > 0.0 ? 1.0 : 0.0);
        tip += fmt::format("\nbaseline {}, change {}{} ({:+.1f} %)", format_energy(it->second),
                           delta >= 0.0 ? "+" : "", format_energy(delta), 100.0 * relative);
        fill = diff_colour(relative);
      }
    }
    svg << fmt::format(
        R"(<g class="frame" data-path="{}" data-energy-j="{:.9g}"><title>{}</title>)",
        xml_escape(f.relative_path), n.energy_j, xml_escape(tip));
    svg << fmt::format(
        R"(<rect x="{:.2f}" y="{:.1f}" width="{:.2f}" height="{:.1f}" fill="{}" stroke="#ffffff" stroke-width="0.5" rx="1"/>)",
        f.x_px, y, f.width_px, kRowPx - 1.0, fill);
    const std::string label = frame_label(n.name, f.width_px);
    if (!label.empty()) {
      svg << fmt::format(R"(<text x="{:.2f}" y="{:.1f}">{}</text>)", f.x_px + 3.0, y + kRowPx - 5.0,
                         xml_escape(label));
    }
    svg << "</g>\n";
  }

  // Legend: the categories present.
  std::map<int, SpanCategory> present;
  for (const FlameLayout& f : frames)
    present.emplace(static_cast<int>(f.node->category), f.node->category);
  double x = 8.0;
  const double legend_y =
      height - kFooterPx - static_cast<double>(warning_lines) * kWarningLinePx + 14.0;
  for (const auto& [number, category] : present) {
    if (baseline != nullptr) break;  // colours mean change, not category
    svg << fmt::format(
               R"(<g class="legend"><rect x="{:.0f}" y="{:.0f}" width="12" height="12" fill="{}"/>)"
               R"(<text x="{:.0f}" y="{:.0f}">{}</text></g>)",
               x, legend_y, category_colour(category), x + 16.0, legend_y + 10.0,
               to_string(category))
        << '\n';
    x += 24.0 + kCharPx * static_cast<double>(to_string(category).size()) + 8.0;
  }
  if (baseline != nullptr) {
    std::size_t removed = 0;
    double removed_j = 0.0;
    const std::map<std::string, double> after = energy_by_relative_path(root);
    for (const auto& [path, energy] : before) {
      // Count only the topmost absent node of each absent subtree.
      const std::size_t slash = path.rfind('/');
      const std::string parent = slash == std::string::npos ? "" : path.substr(0, slash);
      if (!after.contains(path) && after.contains(parent)) {
        ++removed;
        removed_j += energy;
      }
    }
    svg << fmt::format(
               R"(<text class="removed" x="8" y="{:.0f}">{} baseline nodes absent here ({} in the baseline)</text>)",
               legend_y + 10.0, removed, format_energy(removed_j))
        << '\n';
  }
  for (std::size_t i = 0; i < warning_lines; ++i) {
    svg << fmt::format(R"(<text class="warning" x="8" y="{:.0f}" fill="#b00020">{}</text>)",
                       legend_y + kFooterPx + static_cast<double>(i) * kWarningLinePx,
                       xml_escape(warning_text[i]))
        << '\n';
  }
  svg << "</svg>\n";
  return svg.str();
}

}  // namespace jouleprof::report
