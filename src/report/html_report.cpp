// The `html` report: one self-contained page (inline CSS, inline SVG, a few lines of inline JS;
// nothing fetched from the network) with the run summary, power over time with the spans of every
// track under it on the same time axis, the breakdown tree, the top operators, the provenance of
// every channel and attribution, and the warnings.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <sstream>

#include "core/quantity_text.hpp"
#include "jouleprof/attribution.hpp"
#include "report/markup.hpp"
#include "report/power_points.hpp"
#include "report/tree_rows.hpp"
#include "report/writers.hpp"

namespace jouleprof::report {
namespace {

constexpr double kChartWidthPx = 1100.0;
constexpr double kChartLeftPx = 60.0;  // room for the watt axis
constexpr double kChartRightPx = 10.0;
constexpr double kPowerHeightPx = 220.0;
constexpr double kLaneLevelPx = 9.0;  // one nesting level of a track's spans
constexpr int kMaxLaneLevels = 4;     // deeper spans are drawn on the deepest level
constexpr int kTreeOpenDepth = 2;     // tree levels shown expanded when the page opens

constexpr std::array<std::string_view, 8> kChannelColours{
    "#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2"};

constexpr std::string_view kStyle = R"(
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:24px;color:#222;background:#fff}
h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 8px;border-bottom:1px solid #ddd}
table{border-collapse:collapse;font-size:13px}td,th{padding:3px 8px;text-align:left;border-bottom:1px solid #eee}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
.cards{display:flex;flex-wrap:wrap;gap:12px}.card{background:#f4f6f8;border-radius:6px;padding:10px 14px;min-width:140px}
.card .v{font-size:20px;font-weight:600}.card .k{font-size:12px;color:#555}
.partial{background:#fff3cd;border:1px solid #e0c36b;padding:8px;border-radius:4px}
details{margin-left:18px}summary{cursor:pointer;white-space:nowrap}.leaf{margin-left:32px;white-space:nowrap}
.bar{display:inline-block;height:10px;background:#e6a23c;vertical-align:middle;margin:0 6px}
.prov{font-size:11px;padding:1px 5px;border-radius:3px;background:#e8eef7}.muted{color:#777}
.warn li{color:#8a4b00}svg text{font-size:11px;fill:#333}
)";

constexpr std::string_view kScript = R"(
document.getElementById('expand-all').addEventListener('click',function(){
  document.querySelectorAll('#tree details').forEach(function(d){d.open=true;});});
document.getElementById('collapse-all').addEventListener('click',function(){
  document.querySelectorAll('#tree details').forEach(function(d){d.open=false;});});
)";

struct TimeAxis {
  TimeNs begin_ns = 0;
  TimeNs end_ns = 1;
  double x(TimeNs t) const {
    const double f = static_cast<double>(t - begin_ns) / static_cast<double>(end_ns - begin_ns);
    return kChartLeftPx + std::clamp(f, 0.0, 1.0) * (kChartWidthPx - kChartLeftPx - kChartRightPx);
  }
};

TimeAxis time_axis(const Profile& p) {
  TimeAxis axis{p.meta.begin_ns, p.meta.end_ns};
  if (axis.end_ns <= axis.begin_ns) {
    bool any = false;
    auto widen = [&](TimeNs a, TimeNs b) {
      axis.begin_ns = any ? std::min(axis.begin_ns, a) : a;
      axis.end_ns = any ? std::max(axis.end_ns, b) : b;
      any = true;
    };
    if (!p.timeline.spans().empty()) widen(p.timeline.extent().first, p.timeline.extent().second);
    for (const Series& s : p.series) {
      if (!s.empty()) widen(s.begin_ns(), s.end_ns());
    }
  }
  if (axis.end_ns <= axis.begin_ns) axis.end_ns = axis.begin_ns + 1;
  return axis;
}

void card(std::ostringstream& out, std::string_view key, const std::string& value) {
  out << "<div class=\"card\"><div class=\"v\">" << xml_escape(value) << "</div><div class=\"k\">"
      << key << "</div></div>";
}

void write_summary(const Profile& p, std::ostringstream& out) {
  const RunMetadata& m = p.meta;
  out << "<section id=\"summary\"><h2>Summary</h2>";
  if (m.partial)
    out << "<p class=\"partial\">This run was cut short: only what was measured is shown.</p>";
  const TimeNs duration = m.end_ns - m.begin_ns;
  const double total = p.total_energy_j();
  out << "<div class=\"cards\">";
  const std::optional<EnergyBand> total_band = p.total_energy_band();
  card(out, "total energy (top-level channels)",
       format_energy(total) + (total_band ? " " + format_uncertainty(total_band, total) : ""));
  if (const std::optional<double> process_j = p.total_process_energy_j()) {
    card(out, "observed processes (attributed share)", format_energy(*process_j));
  }
  // Repeated work: one repetition's mean energy, its 95 % interval the Student-t one over the
  // repetitions with the terms that repeat alike (docs/uncertainty.md, "Repetition").
  const auto repeated = [&out](std::string_view what, const std::optional<RepeatedEnergy>& e) {
    if (!e) return;
    card(out,
         fmt::format("energy per {} (mean of {}, 95 % mostly {})", what, e->stats.n,
                     to_string(e->band.dominant)),
         format_energy(e->stats.mean) + " " + format_uncertainty(e->band, e->stats.mean));
  };
  repeated("step", p.energy_per_step);
  repeated("epoch", p.energy_per_epoch);
  card(out, "duration", format_duration(duration));
  if (duration > 0) card(out, "mean power", fmt::format("{:.2f} W", total / ns_to_s(duration)));
  card(out, "channels", std::to_string(p.channels.size()));
  card(out, "spans", std::to_string(p.timeline.spans().size()));
  if (m.grid_intensity_g_per_kwh) {
    card(out, "CO₂e at the grid intensity given",
         fmt::format("{:.3g} g", total / 3.6e6 * *m.grid_intensity_g_per_kwh));
  }
  out << "</div><table class=\"meta\">";
  auto row = [&](std::string_view k, const std::string& v) {
    out << "<tr><th>" << k << "</th><td>" << xml_escape(v) << "</td></tr>";
  };
  row("kind", m.kind);
  row("host", m.host.empty() ? "not recorded (attributed from files)" : m.host);
  if (m.rank)
    row("rank",
        fmt::format("{}{}", *m.rank, m.world_size ? fmt::format(" of {}", *m.world_size) : ""));
  std::string command;
  for (const std::string& a : m.command) command += (command.empty() ? "" : " ") + a;
  if (!command.empty()) row("command", command);
  if (m.exit_code) row("exit code", std::to_string(*m.exit_code));
  row("tool version", m.tool_version);
  for (const auto& [k, v] : recorded_option_entries(m.options)) row(k, v);
  out << "</table></section>\n";
}

// The channel's peak as its summary gives it (the one peak rule, summarize_channel), so that the
// chart and the channel table agree.
std::string peak_note(const Profile& p, const std::string& channel_id) {
  for (const ChannelSummary& c : p.channels) {
    if (c.channel_id == channel_id) return fmt::format(", peak {:.2f} W", c.peak_power_w);
  }
  return "";
}

void write_power_chart(const Profile& p, const ReportOptions& options, std::ostringstream& out) {
  out << "<section id=\"power\"><h2>Power over time</h2>";
  const TimeAxis axis = time_axis(p);
  std::vector<std::pair<const Series*, std::vector<PowerInterval>>> lines;
  double peak = 0.0;
  for (const Series& s : p.series) {
    if (!s.channel().carries_energy()) continue;
    auto intervals = power_intervals(s, options.html_power_points);
    peak = std::max(peak, highest_plotted_power_w(intervals));
    lines.emplace_back(&s, std::move(intervals));
  }
  const double y_max = peak > 0.0 ? peak * 1.1 : 1.0;
  const Timeline& tl = p.timeline;

  // Span lanes: each track one lane, nesting levels stacked inside it.
  std::vector<int> levels_of_track(tl.tracks().size(), 1);
  std::vector<int> level_of_span(tl.spans().size(), 0);
  for (std::size_t i = 0; i < tl.spans().size(); ++i) {
    int level = 0;
    for (std::uint32_t parent = tl.spans()[i].parent;
         parent != kNoIndex && parent < tl.spans().size(); parent = tl.spans()[parent].parent) {
      if (++level >= kMaxLaneLevels - 1) break;
    }
    level_of_span[i] = level;
    const std::uint32_t track = tl.spans()[i].track;
    if (track < levels_of_track.size())
      levels_of_track[track] = std::max(levels_of_track[track], level + 1);
  }
  double lanes_height = 0.0;
  for (int levels : levels_of_track) lanes_height += levels * kLaneLevelPx + 16.0;
  const double top = 10.0;
  const double axis_y = top + kPowerHeightPx;
  const double height = axis_y + 24.0 + lanes_height + 10.0;
  auto y_of = [&](double w) { return axis_y - w / y_max * kPowerHeightPx; };

  out << fmt::format(
      R"(<svg id="power-chart" xmlns="http://www.w3.org/2000/svg" width="{:.0f}" height="{:.0f}" viewBox="0 0 {:.0f} {:.0f}">)",
      kChartWidthPx, height, kChartWidthPx, height);
  out << fmt::format(
      R"(<rect x="{:.0f}" y="{:.0f}" width="{:.0f}" height="{:.0f}" fill="#fafbfc" stroke="#ccc"/>)",
      kChartLeftPx, top, kChartWidthPx - kChartLeftPx - kChartRightPx, kPowerHeightPx);
  for (int k = 0; k <= 4; ++k) {
    const double w = y_max * k / 4.0;
    out << fmt::format(
        R"(<line x1="{:.0f}" x2="{:.0f}" y1="{:.1f}" y2="{:.1f}" stroke="#e3e3e3"/><text x="{:.0f}" y="{:.1f}" text-anchor="end">{:.3g} W</text>)",
        kChartLeftPx, kChartWidthPx - kChartRightPx, y_of(w), y_of(w), kChartLeftPx - 4,
        y_of(w) + 4, w);
  }
  for (int k = 0; k <= 5; ++k) {
    const TimeNs t = axis.begin_ns + (axis.end_ns - axis.begin_ns) * k / 5;
    out << fmt::format(R"(<text x="{:.1f}" y="{:.1f}" text-anchor="middle">{}</text>)", axis.x(t),
                       axis_y + 14, xml_escape(format_duration(t - axis.begin_ns)));
  }
  for (std::size_t c = 0; c < lines.size(); ++c) {
    const Channel& ch = lines[c].first->channel();
    std::string d;
    TimeNs previous_end = -1;
    for (const PowerInterval& iv : lines[c].second) {
      const double y = y_of(iv.power_w);
      d += iv.begin_ns == previous_end ? fmt::format("V{:.1f}", y)
                                       : fmt::format("M{:.1f} {:.1f}", axis.x(iv.begin_ns), y);
      d += fmt::format("H{:.1f}", axis.x(iv.end_ns));
      previous_end = iv.end_ns;
    }
    if (d.empty()) continue;
    out << fmt::format(
        R"(<path class="power-line" data-channel="{}" d="{}" fill="none" stroke="{}" stroke-width="1.5"{}><title>{}</title></path>)",
        xml_escape(ch.id), d, kChannelColours[c % kChannelColours.size()],
        ch.is_top_level() ? "" : R"( stroke-dasharray="4 2")",
        xml_escape(fmt::format("{} — {} ({}){}", ch.id, to_string(ch.provenance),
                               ch.provenance_detail, peak_note(p, ch.id))));
    for (const Gap& g : lines[c].first->gaps()) {
      out << fmt::format(
          R"(<rect class="gap" x="{:.1f}" y="{:.0f}" width="{:.1f}" height="{:.0f}" fill="#f2b8b5" opacity="0.4"><title>{}</title></rect>)",
          axis.x(g.begin_ns), top, std::max(1.0, axis.x(g.end_ns) - axis.x(g.begin_ns)),
          kPowerHeightPx, xml_escape("gap in " + ch.id + ": " + g.reason));
    }
  }

  // Lanes. The longest spans are drawn first and kept when there are too many.
  std::vector<double> lane_top(tl.tracks().size(), 0.0);
  double y = axis_y + 24.0;
  for (std::size_t t = 0; t < tl.tracks().size(); ++t) {
    lane_top[t] = y + 12.0;
    out << fmt::format(
        R"(<text x="4" y="{:.1f}">{}</text>)", y + 9.0,
        xml_escape(std::string(to_string(tl.tracks()[t].kind)) + ": " + tl.tracks()[t].name +
                   (tl.tracks()[t].device.empty() ? "" : " (" + tl.tracks()[t].device + ")")));
    y += levels_of_track[t] * kLaneLevelPx + 16.0;
  }
  std::vector<std::uint32_t> order(tl.spans().size());
  for (std::uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    return tl.spans()[a].duration_ns() > tl.spans()[b].duration_ns();
  });
  std::size_t drawn = 0;
  for (std::uint32_t i : order) {
    if (drawn == options.html_max_spans) break;
    const Span& s = tl.spans()[i];
    if (s.track >= tl.tracks().size() || s.name >= tl.names().size()) continue;
    const double x0 = axis.x(s.begin_ns);
    const double w = std::max(0.5, axis.x(s.end_ns) - x0);
    out << fmt::format(
        R"(<rect class="span" x="{:.1f}" y="{:.1f}" width="{:.1f}" height="{:.0f}" fill="{}"><title>{}</title></rect>)",
        x0, lane_top[s.track] + level_of_span[i] * kLaneLevelPx, w, kLaneLevelPx - 1.0,
        category_colour(s.category),
        xml_escape(fmt::format("{} ({}) {}", tl.path_of(i), to_string(s.category),
                               format_duration(s.duration_ns()))));
    ++drawn;
  }
  out << "</svg>";
  out << "<p class=\"legend\">";
  for (std::size_t c = 0; c < lines.size(); ++c) {
    const Channel& ch = lines[c].first->channel();
    out << fmt::format(
        R"(<span style="color:{}">&#9632;</span> {} <span class="prov">{}</span>{} &nbsp; )",
        kChannelColours[c % kChannelColours.size()], xml_escape(ch.id), to_string(ch.provenance),
        ch.is_top_level() ? "" : " (nested, dashed)");
  }
  out << "</p>";
  if (lines.empty()) out << "<p class=\"muted\">No energy channel in this profile.</p>";
  if (drawn < tl.spans().size()) {
    out << fmt::format(
        "<p class=\"muted\">{} of {} spans drawn (the longest); the trace report holds all.</p>",
        drawn, tl.spans().size());
  }
  out << "</section>\n";
}

std::string node_line(const ProfileNode& n, double root_energy_j) {
  const double share = root_energy_j > 0.0 ? n.energy_j / root_energy_j : 0.0;
  std::string line = fmt::format(
      R"(<b>{}</b> {}<span class="bar" style="width:{:.0f}px"></span>{} · self {} · {} · {} calls <span class="prov">{}</span>)",
      xml_escape(n.name),
      xml_escape(format_energy(n.energy_j) +
                 (n.band ? " " + format_uncertainty(n.band, n.energy_j) : "")),
      std::max(1.0, share * 200.0), format_share(share), xml_escape(format_energy(n.self_energy_j)),
      xml_escape(format_duration(n.time_ns)), n.calls, to_string(n.provenance));
  if (n.static_energy_j && n.dynamic_energy_j) {
    line += fmt::format(" <span class=\"muted\">static {} / dynamic {}</span>",
                        xml_escape(format_energy(*n.static_energy_j)),
                        xml_escape(format_energy(*n.dynamic_energy_j)));
  }
  return line;
}

// Nested <details>, written with a heap stack: a null node closes the element of a finished one.
void write_nodes(const ProfileNode& root, std::ostringstream& out) {
  std::vector<std::pair<const ProfileNode*, int>> pending{{&root, 0}};
  while (!pending.empty()) {
    const auto [n, depth] = pending.back();
    pending.pop_back();
    if (n == nullptr) {
      out << "</details>";
      continue;
    }
    const std::string line = node_line(*n, root.energy_j);
    if (n->children.empty()) {
      out << "<div class=\"leaf\">" << line << "</div>";
      continue;
    }
    out << "<details" << (depth < kTreeOpenDepth ? " open" : "") << "><summary>" << line
        << "</summary>";
    pending.emplace_back(nullptr, depth);
    for (auto it = n->children.rbegin(); it != n->children.rend(); ++it) {
      pending.emplace_back(&*it, depth + 1);
    }
  }
}

void write_tree(const Profile& p, std::ostringstream& out) {
  out << "<section id=\"tree\"><h2>Breakdown</h2>";
  if (!p.tree) {
    out << "<p class=\"muted\">No breakdown tree: this profile was not attributed.</p></section>\n";
    return;
  }
  out << R"(<p><button id="expand-all" type="button">expand all</button> <button id="collapse-all" type="button">collapse all</button></p>)";
  write_nodes(*p.tree, out);
  out << "</section>\n";
}

// The list `jouleprof attribute` and `profile` print (jouleprof::top_operators): self energy summed
// by name with indices collapsed, pass and [unattributed] nodes left out.
void write_operators(const Profile& p, const ReportOptions& options, std::ostringstream& out) {
  out << "<section id=\"operators\"><h2>Top operators</h2>";
  if (!p.tree) {
    out << "<p class=\"muted\">No breakdown tree.</p></section>\n";
    return;
  }
  out << "<p class=\"muted\">Self energy by operator, summed over every layer and pass "
         "(indices collapsed: layer_* ); share = of the run's total.</p>"
         "<table><tr><th>operator</th><th class=\"num\">self energy</th><th "
         "class=\"num\">share</th><th class=\"num\">self time</th><th class=\"num\">calls</th>"
         "<th class=\"num\">energy/call</th><th>provenance</th></tr>";
  const double root = p.tree->energy_j;
  for (const OperatorTotal& op : top_operators(*p.tree, options.top_operators)) {
    out << fmt::format(
        "<tr><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td "
        "class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td><span "
        "class=\"prov\">{}</span></td></tr>",
        xml_escape(op.name), xml_escape(format_energy(op.energy_j)),
        format_share(root > 0.0 ? op.energy_j / root : 0.0),
        xml_escape(format_duration(op.time_ns)), op.calls,
        xml_escape(op.calls > 0 ? format_energy(op.energy_j / static_cast<double>(op.calls)) : "–"),
        to_string(p.tree->provenance));
  }
  out << "</table></section>\n";
}

void write_provenance(const Profile& p, std::ostringstream& out) {
  out << "<section "
         "id=\"provenance\"><h2>Provenance</h2><table><tr><th>channel</th><th>source</"
         "th><th>device</th>"
         "<th>domain</th><th>kind</th><th>provenance</th><th>detail</th><th>inside</th><th "
         "class=\"num\">update period</th>"
         "<th class=\"num\">energy</th><th class=\"num\">mean</th><th class=\"num\">peak</th></tr>";
  for (const Series& s : p.series) {
    const Channel& c = s.channel();
    const ChannelSummary* summary = nullptr;
    for (const ChannelSummary& cs : p.channels) {
      if (cs.channel_id == c.id) summary = &cs;
    }
    const TimeNs period = c.measured_period_ns > 0 ? c.measured_period_ns : c.nominal_period_ns;
    out << fmt::format(
        "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td><span "
        "class=\"prov\">{}</span></td>"
        "<td>{}</td><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td "
        "class=\"num\">{}</td><td class=\"num\">{}</td></tr>",
        xml_escape(c.id), xml_escape(c.source), xml_escape(c.device_with_label()),
        xml_escape(c.domain), to_string(c.kind), to_string(c.provenance),
        xml_escape(c.provenance_detail), xml_escape(c.parent_id),
        period > 0 ? xml_escape(format_duration(period)) : "–",
        summary
            ? xml_escape(
                  format_energy(summary->energy_j) +
                  (summary->band ? " " + format_uncertainty(summary->band, summary->energy_j) : ""))
            : "–",
        summary ? fmt::format("{:.2f} W", summary->mean_power_w) : "–",
        summary ? fmt::format("{:.2f} W", summary->peak_power_w) : "–");
  }
  out << "</table>";
  if (!p.attribution.empty()) {
    out << "<h3>Attribution</h3><table><tr><th>channel</th><th>method</th><th>why</"
           "th><th>diagnostics</th><th>notes</th></tr>";
    for (const AttributionRecord& a : p.attribution) {
      std::string diagnostics;
      for (const auto& [k, v] : diagnostics_by_name(a.diagnostics))
        diagnostics += fmt::format("{}{} = {:.4g}", diagnostics.empty() ? "" : "; ", k, v);
      std::string notes;
      for (const std::string& n : a.notes) notes += (notes.empty() ? "" : "; ") + n;
      out << fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                         xml_escape(a.channel_id), xml_escape(recorded_method_name(a.method)),
                         xml_escape(a.reason), xml_escape(diagnostics), xml_escape(notes));
    }
    out << "</table>";
  }
  out << "</section>\n";
}

void write_warnings(const Profile& p, std::ostringstream& out) {
  out << "<section id=\"warnings\"><h2>Warnings</h2>";
  if (p.warnings.empty()) {
    out << "<p class=\"muted\">None.</p>";
  } else {
    out << "<ul class=\"warn\">";
    for (const std::string& w : p.warnings) out << "<li>" << xml_escape(w) << "</li>";
    out << "</ul>";
  }
  out << "</section>\n";
}

}  // namespace

Result<std::string> write_html(const Profile& profile, const ReportOptions& options) {
  std::ostringstream out;
  const std::string title =
      "jouleprof report" + (profile.meta.host.empty() ? "" : " — " + profile.meta.host);
  out << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
      << "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
      << "<title>" << xml_escape(title) << "</title><style>" << kStyle << "</style></head><body>\n"
      << "<h1>" << xml_escape(title) << "</h1>\n";
  write_summary(profile, out);
  write_power_chart(profile, options, out);
  write_tree(profile, out);
  write_operators(profile, options, out);
  write_provenance(profile, out);
  write_warnings(profile, out);
  out << "<footer class=\"muted\"><p>jouleprof " << xml_escape(profile.meta.tool_version)
      << " · profile schema " << profile.schema_version << "</p></footer>\n";
  if (profile.tree) out << "<script>" << kScript << "</script>\n";
  out << "</body></html>\n";
  return out.str();
}

}  // namespace jouleprof::report
