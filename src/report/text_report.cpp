// The `text` report: a summary, the channels and the breakdown tree as an indented table.
#include <fmt/format.h>

#include <sstream>

#include "report/markup.hpp"
#include "report/tree_rows.hpp"
#include "report/writers.hpp"

namespace jouleprof::report {
namespace {

void write_summary(const Profile& p, std::ostringstream& out) {
  const RunMetadata& m = p.meta;
  out << "jouleprof " << (m.kind.empty() ? "profile" : m.kind);
  if (!m.host.empty()) out << " on " << m.host;
  if (m.rank)
    out << " (rank " << *m.rank << (m.world_size ? fmt::format(" of {}", *m.world_size) : "")
        << ")";
  out << ", " << format_duration(m.end_ns - m.begin_ns) << '\n';
  if (!m.command.empty()) {
    out << "command:";
    for (const std::string& arg : m.command) out << ' ' << arg;
    out << '\n';
  }
  if (m.exit_code) out << "exit code: " << *m.exit_code << '\n';
  if (m.partial) out << "PARTIAL RUN: cut short; only what was measured is shown\n";
  out << "total energy: " << format_energy(p.total_energy_j()) << " (top-level channels)\n";
}

void write_channels(const Profile& p, std::ostringstream& out) {
  if (p.channels.empty()) return;
  out << "\nchannels:\n";
  for (const ChannelSummary& c : p.channels) {
    const Series* s = p.find_series(c.channel_id);
    const bool nested = s != nullptr && !s->channel().is_top_level();
    out << fmt::format("  {:<32} {:>10}  mean {:>8.2f} W  peak {:>8.2f} W  {}", c.channel_id,
                       format_energy(c.energy_j), c.mean_power_w, c.peak_power_w,
                       to_string(c.provenance));
    if (s != nullptr && !s->channel().provenance_detail.empty()) {
      out << " (" << s->channel().provenance_detail << ')';
    }
    if (c.idle_power_w) out << fmt::format("  idle {:.2f} W", *c.idle_power_w);
    if (nested) out << "  [inside " << s->channel().parent_id << ", not added to the total]";
    out << '\n';
  }
}

// Two spaces a level, up to kMaxIndentLevels; deeper rows say their depth instead of growing
// wider (a 100 000-level tree would otherwise print 10 GB of spaces).
std::string indentation(int depth) {
  constexpr int kMaxIndentLevels = 40;
  if (depth <= kMaxIndentLevels) return std::string(static_cast<std::size_t>(depth) * 2, ' ');
  return std::string(kMaxIndentLevels * 2, ' ') + fmt::format("[depth {}] ", depth);
}

void write_tree(const Profile& p, std::ostringstream& out) {
  if (!p.tree) {
    out << "\n(no breakdown tree: the profile was not attributed)\n";
    return;
  }
  out << fmt::format("\n{:>10} {:>7} {:>10} {:>10} {:>8}  {:<12} {}\n", "energy", "share", "self",
                     "time", "calls", "provenance", "node");
  for (const TreeRow& row : flatten_tree(*p.tree, false)) {
    const ProfileNode& n = *row.node;
    out << fmt::format("{:>10} {:>7} {:>10} {:>10} {:>8}  {:<12} {}{}", format_energy(n.energy_j),
                       format_share(row.share), format_energy(n.self_energy_j),
                       format_duration(n.time_ns), n.calls, to_string(n.provenance),
                       indentation(row.depth), n.name);
    if (n.static_energy_j && n.dynamic_energy_j) {
      out << fmt::format("  [static {}, dynamic {}]", format_energy(*n.static_energy_j),
                         format_energy(*n.dynamic_energy_j));
    }
    if (n.energy_stats) {
      out << fmt::format("  [n={} mean {} ±{}]", n.energy_stats->n,
                         format_energy(n.energy_stats->mean), format_energy(n.energy_stats->stdev));
    }
    out << '\n';
  }
}

void write_attribution_and_warnings(const Profile& p, std::ostringstream& out) {
  if (!p.attribution.empty()) {
    out << "\nattribution:\n";
    for (const AttributionRecord& a : p.attribution) {
      out << "  " << a.channel_id << ": " << a.method << " — " << a.reason << '\n';
      for (const std::string& note : a.notes) out << "    note: " << note << '\n';
    }
  }
  if (!p.warnings.empty()) {
    out << "\nwarnings:\n";
    for (const std::string& w : p.warnings) out << "  - " << w << '\n';
  }
}

}  // namespace

Result<std::string> write_text(const Profile& profile, const ReportOptions& /*options*/) {
  std::ostringstream out;
  write_summary(profile, out);
  write_channels(profile, out);
  write_tree(profile, out);
  write_attribution_and_warnings(profile, out);
  return out.str();
}

}  // namespace jouleprof::report
