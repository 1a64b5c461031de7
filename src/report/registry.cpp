// The report registry: format name -> writer. Adding a format is one row here plus its file.
#include <cmath>
#include <limits>

#include "core/figure_bounds.hpp"
#include "core/text_file.hpp"
#include "core/unread_channel.hpp"
#include "jouleprof/report.hpp"
#include "report/writers.hpp"

namespace jouleprof {

namespace {

// The output half of the plausibility gate for a whole profile: an energy or power beyond what any
// run can hold, and the 0 J of a channel that never gave a reading, become NaN, which every format
// shows as invalid (JSON: null), so no 300-digit or made-up figure is printed; figure_problems has
// said which figures they were.
void withhold_implausible_figures(Profile& profile) {
  constexpr double kWithheld = std::numeric_limits<double>::quiet_NaN();
  const auto energy = [&](double& j) {
    if (!plausible(FigureKind::kEnergyChange, j)) j = kWithheld;
  };
  const auto power = [&](double& w) {
    if (!plausible(FigureKind::kPowerChange, w)) w = kWithheld;
  };
  if (profile.tree) {
    walk_tree(*profile.tree, [&](ProfileNode& n, int) {
      energy(n.energy_j);
      energy(n.self_energy_j);
      if (n.static_energy_j) energy(*n.static_energy_j);
      if (n.dynamic_energy_j) energy(*n.dynamic_energy_j);
      for (auto& [channel, j] : n.energy_by_channel_j) energy(j);
      if (n.band && !(plausible(FigureKind::kEnergyChange, n.band->low_j) &&
                      plausible(FigureKind::kEnergyChange, n.band->high_j))) {
        n.band.reset();
      }
    });
  }
  for (ChannelSummary& c : profile.channels) {
    if (has_no_reading(profile, c)) c.energy_j = c.mean_power_w = kWithheld;
    energy(c.energy_j);
    if (c.net_energy_j) energy(*c.net_energy_j);
    power(c.mean_power_w);
    power(c.peak_power_w);
  }
}

}  // namespace

const std::vector<ReportFormat>& report_formats() {
  static const std::vector<ReportFormat> kFormats{
      {"text", "txt", "the breakdown tree as indented text", false, report::write_text},
      {"json", "json", "the profile itself (docs/schema.md)", false, report::write_json},
      {"csv", "csv", "the breakdown tree flattened, one row per node", false, report::write_csv},
      {"trace", "json", "Chrome/Perfetto trace: spans on their tracks + power counters", false,
       report::write_trace},
      {"flamegraph", "svg", "SVG energy flame graph (differential against a second profile)", true,
       report::write_flamegraph},
      {"html", "html", "self-contained HTML report (no network needed)", false, report::write_html},
  };
  return kFormats;
}

const ReportFormat* find_report_format(std::string_view name) {
  for (const ReportFormat& f : report_formats()) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

Result<std::string> render_report(std::string_view format, const Profile& profile,
                                  const ReportOptions& options) {
  const ReportFormat* f = find_report_format(format);
  if (f == nullptr) {
    std::string known;
    for (const ReportFormat& k : report_formats())
      known += (known.empty() ? "" : ", ") + std::string(k.name);
    return invalid_input("report", "format", format, "is not a report format (" + known + ")");
  }
  if (options.baseline != nullptr && !f->supports_diff) {
    return invalid_input("report", "diff", format,
                         "has no differential form (use flamegraph, or `jouleprof compare`)");
  }
  // Figures that cannot be true are said in every format (beside the profile's own warnings);
  // the copy is made only for such a profile.
  std::vector<std::string> problems = figure_problems(profile);
  if (problems.empty()) return f->write(profile, options);
  Profile flagged = profile;
  withhold_implausible_figures(flagged);
  for (std::string& p : problems) flagged.warnings.push_back(std::move(p));
  return f->write(flagged, options);
}

Status write_report(std::string_view format, const Profile& profile, const ReportOptions& options,
                    const std::string& path) {
  JP_TRY(const std::string text, render_report(format, profile, options));
  return write_text_file(path, text);
}

}  // namespace jouleprof
