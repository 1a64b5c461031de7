// The `text` report: the one text rendering of a profile, laid out to a terminal's width
// (TextViewOptions in jouleprof/report.hpp says which commands print it and in what order).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <queue>
#include <set>

#include "core/control_escapes.hpp"
#include "core/parse.hpp"
#include "core/quantity_text.hpp"
#include "jouleprof/attribution.hpp"
#include "jouleprof/channel_summary.hpp"
#include "report/display_name.hpp"
#include "report/text_layout.hpp"
#include "report/uncertainty_advice.hpp"
#include "report/writers.hpp"

namespace jouleprof::report {
namespace {

constexpr std::size_t kNoLimit = std::numeric_limits<std::size_t>::max();
// A name column narrower than this is not worth the other columns: the line grows instead.
constexpr std::size_t kMinNameColumns = 16;
// The fewest columns a name is cut to after its guide, however deep the row.
constexpr std::size_t kMinCutName = 6;
// Guides a level in the tree, up to this depth; deeper rows keep the last guide's width.
constexpr int kMaxGuideLevels = 40;
// Channels named in the headline before "and N more".
constexpr std::size_t kHeadlineChannels = 3;

// The options as they apply: `full` lifts every limit of the tree and of the width.
struct TextLayout {
  std::size_t width = 100;
  int max_depth = 4;
  std::size_t max_children = 8;
  std::size_t max_rows = 40;
  double min_share = 0.0;
  bool shorten = true;
};

TextLayout layout_of(const TextViewOptions& o) {
  if (o.full) return TextLayout{kNoLimit, -1, kNoLimit, kNoLimit, 0.0, false};
  return TextLayout{std::max<std::size_t>(o.width, 40),
                    o.max_depth,
                    o.max_children,
                    o.max_rows,
                    o.min_share,
                    true};
}

// Text from input (warnings, notes, commands) is escaped before it is laid out, so that widths
// count what the terminal will show.
std::string paragraph(std::string_view text, const TextLayout& l, std::string_view first = "",
                      std::string_view next = "  ") {
  return wrap_text(escape_control_characters(text), l.width, first, next);
}

std::string joined(const std::vector<std::string>& parts, std::string_view separator) {
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : std::string(separator)) + p;
  return out;
}

bool nested(const Profile& p, const ChannelSummary& c) {
  const Series* s = p.find_series(c.channel_id);
  return s != nullptr && !s->channel().is_top_level();
}

double total_of(const Profile& p) {
  if (p.channels.empty() && p.tree) return p.tree->energy_j;
  return p.total_energy_j();
}

// "measured: rapl:package-0, rapl:dram-0" or "ESTIMATED (not measured): cpu-estimate:package".
std::string provenance_phrase(const Profile& p) {
  const Provenance provenance = p.total_provenance();
  std::string word(to_string(provenance));
  if (is_modelled(provenance)) {
    std::transform(word.begin(), word.end(), word.begin(),
                   [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
    word += " (not measured)";
  }
  std::vector<std::string> ids;
  for (const ChannelSummary& c : p.channels) {
    if (!nested(p, c)) ids.push_back(c.channel_id);
  }
  if (ids.empty()) return word + (p.tree ? " (the tree's total)" : "");
  std::string list;
  for (std::size_t i = 0; i < ids.size() && i < kHeadlineChannels; ++i)
    list += (i == 0 ? "" : ", ") + ids[i];
  if (ids.size() > kHeadlineChannels) list += fmt::format(" and {} more", ids.size() - 3);
  return word + ": " + list;
}

// The observed processes' attributed part of the total (docs/sharing.md): who, how much, by
// which rule; or that they were observed and no channel has a per-process figure.
void write_observed_processes(const Profile& p, double total_j, const TextLayout& l,
                              std::string& out) {
  const std::optional<std::string>& who = p.meta.options.process.observed;
  const std::optional<double> process_j = p.total_process_energy_j();
  if (!process_j) {
    if (who)
      out += paragraph(
          "observed processes (" + *who + "): no per-process figure (see the warnings)", l);
    return;
  }
  std::set<std::string> rules;
  for (const ChannelSummary& c : p.channels) {
    if (c.process) rules.insert("attributed:" + c.process->rule);
  }
  std::string line = fmt::format("observed processes{}: {}", who ? " (" + *who + ")" : "",
                                 format_energy(*process_j));
  if (total_j > 0.0) line += fmt::format(", {:.1f} % of the total", 100.0 * *process_j / total_j);
  line += ", " + joined({rules.begin(), rules.end()}, ", ");
  line +=
      ", static part shared by " +
      std::string(to_string(p.meta.options.process.static_share.value_or(StaticShare::kCpuTime)));
  out += paragraph(line, l);
}

void write_headline(const Profile& p, const TextViewOptions& o, const TextLayout& l,
                    std::string& out) {
  const RunMetadata& m = p.meta;
  const std::string kind = m.kind.empty() ? std::string("profile") : m.kind;
  std::string what = "jouleprof " + kind;
  // A jouleprof command records itself as its command ("attribute TRACE SAMPLES"): once is enough.
  std::vector<std::string> command = m.command;
  if (!command.empty() && command.front() == kind) command.erase(command.begin());
  if (!command.empty()) what += ": " + joined(command, " ");
  out += fit_to_width(what, l.width) + '\n';
  std::string when = format_duration(m.end_ns - m.begin_ns);
  if (!m.host.empty()) when += " on " + m.host;
  if (m.rank) {
    when += fmt::format(" (rank {}{})", *m.rank,
                        m.world_size ? fmt::format(" of {}", *m.world_size) : "");
  }
  if (m.exit_code) when += fmt::format(", exit code {}", *m.exit_code);
  out += paragraph(when, l);
  if (m.partial) out += paragraph("PARTIAL RUN: cut short; only what was measured is shown", l);
  const double total_j = total_of(p);
  const std::optional<EnergyBand> total_band = p.total_energy_band();
  std::string total = fmt::format("total {}{}, {}", format_energy(total_j),
                                  total_band ? " " + format_uncertainty(total_band, total_j) : "",
                                  provenance_phrase(p));
  const TimeNs duration = m.end_ns - m.begin_ns;
  if (duration > 0 && !p.channels.empty())
    total += fmt::format("; mean {}", format_power(total_j / ns_to_s(duration)));
  out += paragraph(total, l);
  if (std::optional<std::string> advice = uncertainty_advice(p, total_band)) {
    out += paragraph(*advice, l);
  }
  if (const std::optional<RepeatedEnergy>& step = p.energy_per_step) {
    out += paragraph(fmt::format("energy per step {} {} (mean of {} steps, sd {}; 95 %: Student-t "
                                 "over the steps with the attribution's terms, mostly {})",
                                 format_energy(step->stats.mean),
                                 format_uncertainty(step->band, step->stats.mean), step->stats.n,
                                 format_energy(step->stats.stdev), to_string(step->band.dominant)),
                     l);
  }
  write_observed_processes(p, total_j, l, out);
  if (m.grid_intensity_g_per_kwh) {
    out += paragraph(fmt::format("CO2e {} at {:g} g/kWh",
                                 format_si(co2e_g(total_j, *m.grid_intensity_g_per_kwh), "g"),
                                 *m.grid_intensity_g_per_kwh),
                     l);
  }
  for (const std::string& note : o.notes) out += paragraph(note, l);
}

// A table whose first column holds names (each after a tree guide, kept whole): the names are
// shortened and cut so that the table fits the layout's width. When even so the names would get
// less than kMinNameColumns, the column groups of `give_way` are left out, in their order, until
// they fit; `left_out` gets their headers.
struct NamedRow {
  std::string guide;
  std::string name;
  std::vector<std::string> cells;
};

std::size_t other_columns_width(const std::vector<std::string>& header,
                                const std::vector<NamedRow>& rows) {
  std::size_t others = 0;
  for (std::size_t c = 1; c < header.size(); ++c) {
    std::size_t w = display_width(header[c]);
    for (const NamedRow& r : rows) {
      if (c - 1 < r.cells.size()) w = std::max(w, display_width(r.cells[c - 1]));
    }
    others += w + 2;
  }
  return others;
}

void leave_out_column(std::string_view name, std::vector<std::string>& header,
                      std::vector<NamedRow>& rows) {
  const auto it = std::find(header.begin() + 1, header.end(), name);
  if (it == header.end()) return;
  const auto c = static_cast<std::size_t>(it - header.begin());
  header.erase(it);
  for (NamedRow& r : rows) {
    if (c - 1 < r.cells.size()) r.cells.erase(r.cells.begin() + static_cast<std::ptrdiff_t>(c - 1));
  }
}

std::string named_table(std::vector<std::string> header, std::vector<NamedRow> rows,
                        const TextLayout& l,
                        const std::vector<std::vector<std::string_view>>& give_way = {},
                        std::vector<std::string>* left_out = nullptr) {
  std::size_t widest_guide = 0;
  for (const NamedRow& r : rows) widest_guide = std::max(widest_guide, display_width(r.guide));
  std::size_t others = other_columns_width(header, rows);
  for (const std::vector<std::string_view>& group : give_way) {
    if (l.width == kNoLimit || others + widest_guide + kMinNameColumns <= l.width) break;
    for (const std::string_view name : group) {
      if (std::find(header.begin() + 1, header.end(), name) == header.end()) continue;
      leave_out_column(name, header, rows);
      if (left_out != nullptr) left_out->emplace_back(name);
    }
    others = other_columns_width(header, rows);
  }
  const std::size_t budget = l.width == kNoLimit
                                 ? kNoLimit
                                 : std::max(kMinNameColumns, l.width - std::min(l.width, others));
  // Names that shortening would make the same keep their template arguments (cut in the middle
  // below instead), so that the rows stay told apart.
  std::map<std::string, std::set<std::string_view>> full_names_of;
  if (l.shorten) {
    for (const NamedRow& r : rows) full_names_of[shorten_for_display(r.name)].insert(r.name);
  }
  const auto display_name = [&](const std::string& full) {
    if (!l.shorten) return escape_control_characters(full);
    std::string shortened = shorten_for_display(full);
    return escape_control_characters(
        full_names_of[shortened].size() > 1 ? shorten_for_display(full, true) : shortened);
  };
  std::vector<std::vector<std::string>> cells;
  cells.reserve(rows.size());
  for (const NamedRow& r : rows) {
    const std::string name = display_name(r.name);
    const std::size_t guide = display_width(r.guide);
    const std::size_t room =
        budget == kNoLimit ? kNoLimit : std::max(kMinCutName, budget - std::min(budget, guide));
    std::vector<std::string> row{r.guide + fit_to_width(name, room)};
    row.insert(row.end(), r.cells.begin(), r.cells.end());
    cells.push_back(std::move(row));
  }
  std::vector<bool> right(header.size(), true);
  right[0] = false;
  return format_text_table(header, cells, right);
}

// ---- channels

// One column of the channel table; `shown` leaves out columns no channel has a figure for.
// (Adding a figure to the table is one entry here.)
struct ChannelColumn {
  std::string_view header;
  bool (*shown)(const Profile& p);
  std::string (*cell)(const ChannelSummary& c);
};

bool always(const Profile& /*p*/) { return true; }
bool any_process_share(const Profile& p) {
  return std::any_of(p.channels.begin(), p.channels.end(),
                     [](const ChannelSummary& c) { return c.process.has_value(); });
}
bool any_band(const Profile& p) {
  return std::any_of(p.channels.begin(), p.channels.end(),
                     [](const ChannelSummary& c) { return c.band.has_value(); });
}
bool any_baseline(const Profile& p) {
  return std::any_of(p.channels.begin(), p.channels.end(),
                     [](const ChannelSummary& c) { return c.idle_power_w.has_value(); });
}
// A difference of two figures (net = gross − idle, dynamic = total − static) within this fraction
// of the figure it is taken from is rounding, shown as 0: never "-22.2 mJ" of a 55 J run.
constexpr double kRoundingShare = 5e-4;
std::string difference_energy(double difference, double of) {
  return format_energy(std::fabs(difference) < kRoundingShare * std::fabs(of) ? 0.0 : difference);
}

const std::vector<ChannelColumn>& channel_columns() {
  static const std::vector<ChannelColumn> kColumns{
      {"provenance", always,
       [](const ChannelSummary& c) { return std::string(to_string(c.provenance)); }},
      {"energy", always, [](const ChannelSummary& c) { return format_energy(c.energy_j); }},
      {"±", any_band,
       [](const ChannelSummary& c) { return format_uncertainty(c.band, c.energy_j); }},
      {"idle", any_baseline,
       [](const ChannelSummary& c) {
         return c.idle_power_w ? format_power(*c.idle_power_w) : std::string("-");
       }},
      {"net", any_baseline,
       [](const ChannelSummary& c) {
         return c.net_energy_j ? difference_energy(*c.net_energy_j, c.energy_j) : std::string("-");
       }},
      {"processes", any_process_share,
       [](const ChannelSummary& c) {
         return c.process ? format_energy(c.process->energy_j) : std::string("-");
       }},
      {"share", any_process_share,
       [](const ChannelSummary& c) {
         return c.process ? fmt::format("{:.1f}%", 100.0 * c.process->share) : std::string("-");
       }},
      {"time", always, [](const ChannelSummary& c) { return format_duration(c.duration_ns); }},
      {"mean", always, [](const ChannelSummary& c) { return format_power(c.mean_power_w); }},
      {"peak", always, [](const ChannelSummary& c) { return format_power(c.peak_power_w); }},
  };
  return kColumns;
}

void write_channels(const Profile& p, const TextViewOptions& o, const TextLayout& l,
                    std::string& out) {
  if (p.channels.empty()) return;
  std::vector<const ChannelColumn*> columns;
  for (const ChannelColumn& c : channel_columns()) {
    if (c.shown(p)) columns.push_back(&c);
  }
  std::vector<std::string> header{"channel"};
  for (const ChannelColumn* c : columns) header.emplace_back(c->header);
  std::vector<NamedRow> rows;
  bool any_nested = false;
  for (const ChannelSummary& c : p.channels) {
    NamedRow row{nested(p, c) ? "  " : "", c.channel_id, {}};
    any_nested = any_nested || nested(p, c);
    for (const ChannelColumn* column : columns) row.cells.push_back(column->cell(c));
    rows.push_back(std::move(row));
  }
  // What gives way to the channel names on a narrow terminal; provenance and energy stay.
  static const std::vector<std::vector<std::string_view>> kGiveWay{
      {"time"}, {"mean"}, {"peak"}, {"idle", "net"}, {"share"}};
  std::vector<std::string> left_out;
  const std::string table = named_table(header, rows, l, kGiveWay, &left_out);
  out += "\nchannels:\n";
  if (!left_out.empty()) {
    out += paragraph(
        fmt::format("(left out to fit {} columns: {})", l.width, joined(left_out, ", ")), l);
  }
  out += table;
  if (any_nested)
    out += paragraph("(indented: inside the channel above, not added to the total)", l);
  for (const ChannelSummary& c : p.channels) {
    const Series* s = p.find_series(c.channel_id);
    if (s == nullptr || s->channel().provenance_detail.empty()) continue;
    // How an estimate or a simulation was made is part of the figure; a counter's path is not.
    if (!is_modelled(c.provenance) && !o.full) continue;
    out += paragraph(c.channel_id + ": " + s->channel().provenance_detail, l, "  ", "    ");
  }
}

// ---- epochs

// Epochs listed in full up to this many; beyond, the first and the last ones around a summary row.
constexpr std::size_t kListedEpochs = 20;
constexpr std::size_t kHeadEpochs = 10;
constexpr std::size_t kTailEpochs = 5;

void write_epochs(const Profile& p, const TextViewOptions& o, const TextLayout& l,
                  std::string& out) {
  if (p.epochs.empty()) return;
  double sum_j = 0.0;
  for (const EpochSummary& e : p.epochs) sum_j += e.energy_j;
  std::string title = fmt::format(
      "epochs: {} in {}, {} in all", p.epochs.size(),
      format_duration(p.epochs.back().end_ns - p.epochs.front().begin_ns), format_energy(sum_j));
  if (const std::optional<RepeatedEnergy>& mean = p.energy_per_epoch) {
    title += fmt::format("; per epoch {} {} (95 %: Student-t over the epochs, mostly {})",
                         format_energy(mean->stats.mean),
                         format_uncertainty(mean->band, mean->stats.mean),
                         to_string(mean->band.dominant));
  }
  if (const std::optional<EpochStart>& first = p.meta.options.epochs.first_begin)
    title += "; epoch 1 from " + std::string(to_string(*first));
  out += "\n" + paragraph(title + ":", l, "", "  ");
  const bool bands = std::any_of(p.epochs.begin(), p.epochs.end(),
                                 [](const EpochSummary& e) { return e.band.has_value(); });
  const auto row = [bands](std::size_t index, const EpochSummary& e) {
    std::vector<std::string> cells{std::to_string(index + 1), format_energy(e.energy_j)};
    if (bands) cells.push_back(format_uncertainty(e.band, e.energy_j));
    cells.insert(cells.end(),
                 {format_duration(e.duration_ns()),
                  e.duration_ns() > 0 ? format_power(e.energy_j / ns_to_s(e.duration_ns())) : "",
                  std::to_string(e.counter_updates) +
                      (e.counter_updates < kMinEpochCounterUpdates ? " (short)" : "")});
    return cells;
  };
  std::vector<std::vector<std::string>> rows;
  const std::size_t n = p.epochs.size();
  const bool all = o.full || n <= kListedEpochs;
  for (std::size_t i = 0; i < n; ++i) {
    if (!all && i == kHeadEpochs) {
      double hidden_j = 0.0;
      for (std::size_t k = kHeadEpochs; k < n - kTailEpochs; ++k) hidden_j += p.epochs[k].energy_j;
      std::vector<std::string> hidden{"…", format_energy(hidden_j)};
      if (bands) hidden.emplace_back();
      hidden.push_back(fmt::format("({} more epochs)", n - kHeadEpochs - kTailEpochs));
      rows.push_back(std::move(hidden));
      i = n - kTailEpochs - 1;
      continue;
    }
    rows.push_back(row(i, p.epochs[i]));
  }
  std::vector<std::string> header{"epoch", "energy"};
  if (bands) header.emplace_back("±");
  header.insert(header.end(), {"time", "mean", "counter updates"});
  out += format_text_table(header, rows, std::vector<bool>(header.size(), true));
}

// ---- ranks of a merged profile

// Each rank's share of its host, and how much of its steps it spent in collectives
// (docs/cluster.md, "Communication and waiting"). The rank that waits least is the one the others
// wait for.
void write_ranks(const Profile& p, const TextLayout& l, std::string& out) {
  const RecordedOptions::Merge& m = p.meta.options.merge;
  if (m.rank_energy_j.size() < 2) return;
  double least_wait_s = -1.0;
  for (const auto& [label, wait_s] : m.communication_time_s)
    least_wait_s = least_wait_s < 0.0 ? wait_s : std::min(least_wait_s, wait_s);
  const auto time_text = [](double s) { return format_duration(static_cast<TimeNs>(s * 1e9)); };
  std::vector<std::pair<int, std::vector<std::string>>> rows;  // by rank number
  for (const auto& [label, energy_j] : m.rank_energy_j) {
    std::vector<std::string> row{label.substr(1), format_energy(energy_j)};
    const auto steps = m.steps.find(label);
    if (steps != m.steps.end()) {
      const double step_s = m.step_time_s.at(label);
      const double wait_s = m.communication_time_s.at(label);
      row.insert(row.end(), {std::to_string(steps->second), time_text(step_s), time_text(wait_s),
                             step_s > 0.0 ? fmt::format("{:.1f} %", 100.0 * wait_s / step_s) : "",
                             format_energy(m.communication_energy_j.at(label)),
                             time_text(wait_s - least_wait_s)});
    }
    rows.emplace_back(to_integer<int>(label.substr(1)).value_or(0), std::move(row));
  }
  std::stable_sort(rows.begin(), rows.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::vector<std::string>> cells;
  for (auto& [rank, row] : rows) cells.push_back(std::move(row));
  out += "\n" + paragraph(m.steps.empty()
                              ? "ranks (energy: the rank's processes' share of its host):"
                              : "ranks (energy: the rank's processes' share of its host; wait: "
                                "its steps' time in collectives; beyond least: the wait more than "
                                "the rank that waited least, which the others waited for):",
                          l, "", "  ");
  std::vector<std::string> header{"rank", "energy"};
  if (!m.steps.empty()) {
    header.insert(header.end(),
                  {"steps", "step time", "wait", "of steps", "wait energy", "beyond least"});
  }
  for (std::vector<std::string>& row : cells) row.resize(header.size());
  out += format_text_table(header, cells, std::vector<bool>(header.size(), true));
}

// ---- top operators

void write_top_operators(const ProfileNode& tree, std::size_t n, const TextLayout& l,
                         std::string& out) {
  const std::vector<OperatorTotal> ops = top_operators(tree, n);
  if (ops.empty()) return;
  std::vector<NamedRow> rows;
  for (const OperatorTotal& op : ops) {
    rows.push_back(NamedRow{"",
                            op.name,
                            {format_energy(op.energy_j),
                             format_share(tree.energy_j != 0.0 ? op.energy_j / tree.energy_j : 0.0),
                             format_duration(op.time_ns), std::to_string(op.calls)}});
  }
  out +=
      "\n" +
      paragraph("top operators (self energy summed by name, all layers and passes):", l, "", "  ") +
      named_table({"operator", "energy", "share", "time", "calls"}, rows, l);
}

// ---- the tree

struct TreeEntry {
  const ProfileNode* node = nullptr;
  int depth = 0;
  std::vector<std::size_t> children;  // entries of the children, largest energy first
  std::size_t shown_children = 0;
  bool shown = false;
};

// Which nodes the rows show: the largest first (parents before their children, whose energy
// they include), within the depth, children-per-node and row limits, counting the "(N more)"
// rows too. Entry 0 is the root.
std::vector<TreeEntry> select_rows(const ProfileNode& root, const TextLayout& l) {
  std::vector<TreeEntry> entries{TreeEntry{&root, 0, {}, 0, false}};
  const auto expand = [&](std::size_t e) {
    const ProfileNode& n = *entries[e].node;
    std::vector<const ProfileNode*> kids;
    for (const ProfileNode& c : n.children) kids.push_back(&c);
    std::stable_sort(kids.begin(), kids.end(), [](const ProfileNode* a, const ProfileNode* b) {
      return a->energy_j > b->energy_j;
    });
    const int depth = entries[e].depth + 1;
    for (const ProfileNode* c : kids) {
      entries[e].children.push_back(entries.size());
      entries.push_back(TreeEntry{c, depth, {}, 0, false});
    }
  };
  // Largest energy first; among equals the earlier entry (pre-order-ish) first.
  const auto smaller = [&](std::size_t a, std::size_t b) {
    const double ea = entries[a].node->energy_j, eb = entries[b].node->energy_j;
    return ea != eb ? ea < eb : a > b;
  };
  std::priority_queue<std::size_t, std::vector<std::size_t>, decltype(smaller)> candidates(smaller);
  std::vector<std::size_t> parent_of{kNoLimit};
  candidates.push(0);
  std::size_t lines = 0;  // node rows plus "(N more)" rows
  while (!candidates.empty()) {
    const std::size_t e = candidates.top();
    candidates.pop();
    TreeEntry& t = entries[e];
    const std::size_t parent = parent_of[e];
    // Showing it adds its row and, when it has children that stay hidden, its "more" row; its
    // parent's "more" row goes when this was the last hidden child.
    std::size_t added =
        1 + ((l.max_depth < 0 || t.depth < l.max_depth) && !t.node->children.empty());
    if (parent != kNoLimit) {
      const TreeEntry& up = entries[parent];
      if (up.shown_children + 1 == up.node->children.size()) --added;
    }
    if (lines + added > l.max_rows) break;
    lines += added;
    t.shown = true;
    if (parent != kNoLimit) ++entries[parent].shown_children;
    if (l.max_depth >= 0 && t.depth >= l.max_depth) continue;
    const std::size_t first = entries.size();
    expand(e);
    parent_of.resize(entries.size(), e);
    const ProfileNode& n = *entries[e].node;
    for (std::size_t k = first; k < entries.size(); ++k) {
      if (k - first >= l.max_children) break;
      const double of_parent = n.energy_j != 0.0 ? entries[k].node->energy_j / n.energy_j : 0.0;
      if (of_parent >= l.min_share || l.min_share <= 0.0) candidates.push(k);
    }
  }
  return entries;
}

struct TreeColumns {
  bool band = false;            // the nodes carry 95 % intervals
  bool provenance = false;      // the nodes' provenances differ
  bool static_dynamic = false;  // an idle baseline was measured
  bool spread = false;          // repetition statistics
};

bool baseline_measured(const Profile& p) {
  return std::any_of(p.channels.begin(), p.channels.end(), [](const ChannelSummary& c) {
    return c.idle_power_w && c.provenance != Provenance::kEstimated &&
           c.provenance != Provenance::kPredicted;
  });
}

std::vector<std::string> node_cells(const ProfileNode& n, const ProfileNode* parent, double total_j,
                                    const TreeColumns& columns) {
  std::vector<std::string> cells{format_energy(n.energy_j)};
  if (columns.band) cells.push_back(format_uncertainty(n.band, n.energy_j));
  cells.insert(cells.end(),
               {format_share(total_j != 0.0 ? n.energy_j / total_j : 0.0),
                parent == nullptr
                    ? ""
                    : format_share(parent->energy_j != 0.0 ? n.energy_j / parent->energy_j : 0.0),
                n.time_ns > 0 ? format_power(n.mean_power_w()) : "", format_duration(n.time_ns),
                std::to_string(n.calls)});
  if (columns.provenance) cells.emplace_back(to_string(n.provenance));
  if (columns.static_dynamic) {
    // The dynamic part is a difference: what is within rounding of the node's own figure is 0.
    const bool split = n.static_energy_j && n.dynamic_energy_j;
    const double dynamic = split ? *n.dynamic_energy_j : 0.0;
    cells.push_back(split ? format_energy(*n.static_energy_j) : "");
    cells.push_back(split ? difference_energy(dynamic, n.energy_j) : "");
  }
  if (columns.spread) {
    // The node's own figure is its sum over the repetitions (a run's steps) or their mean; this is
    // one repetition's mean and spread.
    cells.push_back(n.energy_stats
                        ? fmt::format("{} ±{} (n={})", format_energy(n.energy_stats->mean),
                                      format_energy(n.energy_stats->stdev), n.energy_stats->n)
                        : "");
  }
  return cells;
}

void write_tree(const Profile& p, const TextLayout& l, std::string& out) {
  if (!p.tree) {
    out += "\n(no breakdown tree: the profile was not attributed)\n";
    return;
  }
  const ProfileNode& root = *p.tree;
  const std::vector<TreeEntry> entries = select_rows(root, l);

  TreeColumns columns;
  std::set<Provenance> provenances;
  for (const TreeEntry& t : entries) {
    if (!t.shown) continue;
    provenances.insert(t.node->provenance);
    columns.band = columns.band || t.node->band.has_value();
    columns.spread = columns.spread || t.node->energy_stats.has_value();
    columns.static_dynamic = columns.static_dynamic || t.node->static_energy_j.has_value();
  }
  const bool split_hidden = columns.static_dynamic && !baseline_measured(p);
  if (split_hidden) columns.static_dynamic = false;
  columns.provenance = provenances.size() > 1;

  std::vector<NamedRow> rows;
  std::size_t shown = 0;
  // Pre-order over the shown entries: (entry, guide prefix, last among its siblings).
  struct Pending {
    std::size_t entry;
    std::size_t parent;
    std::string prefix;
    bool last;
    std::size_t more;  // != 0: the "(N more)" row of entry `parent`
  };
  std::vector<Pending> stack{Pending{0, kNoLimit, "", true, 0}};
  while (!stack.empty()) {
    Pending item = std::move(stack.back());
    stack.pop_back();
    const TreeEntry& parent_entry = entries[item.parent == kNoLimit ? 0 : item.parent];
    const std::string guide =
        item.parent == kNoLimit ? "" : item.prefix + (item.last ? "└─ " : "├─ ");
    if (item.more != 0) {
      double hidden_j = 0.0;
      for (std::size_t k : parent_entry.children) {
        if (!entries[k].shown) hidden_j += entries[k].node->energy_j;
      }
      // The energy and share of what is left out stand in their columns: the row is never cut.
      std::vector<std::string> cells{format_energy(hidden_j)};
      if (columns.band) cells.emplace_back();
      cells.push_back(format_share(root.energy_j != 0.0 ? hidden_j / root.energy_j : 0.0));
      rows.push_back(NamedRow{guide, fmt::format("({} more)", item.more), std::move(cells)});
      continue;
    }
    const TreeEntry& t = entries[item.entry];
    ++shown;
    const ProfileNode* parent = item.parent == kNoLimit ? nullptr : parent_entry.node;
    const std::string marker = t.depth > kMaxGuideLevels ? fmt::format("[depth {}] ", t.depth) : "";
    rows.push_back(NamedRow{guide, marker + t.node->name,
                            node_cells(*t.node, parent, root.energy_j, columns)});
    if (l.max_depth >= 0 && t.depth >= l.max_depth) continue;
    const std::string child_prefix = item.parent == kNoLimit || t.depth > kMaxGuideLevels
                                         ? item.prefix
                                         : item.prefix + (item.last ? "   " : "│  ");
    std::vector<std::size_t> visible;
    for (std::size_t k : t.children) {
      if (entries[k].shown) visible.push_back(k);
    }
    const std::size_t hidden = t.node->children.size() - visible.size();
    // Pushed in reverse, so that they come off the stack in order.
    if (hidden > 0) stack.push_back(Pending{0, item.entry, child_prefix, true, hidden});
    for (std::size_t i = visible.size(); i-- > 0;) {
      const bool last = i + 1 == visible.size() && hidden == 0;
      stack.push_back(Pending{visible[i], item.entry, child_prefix, last, 0});
    }
  }

  std::size_t total_nodes = 0;
  std::vector<const ProfileNode*> walk{&root};
  while (!walk.empty()) {
    const ProfileNode* n = walk.back();
    walk.pop_back();
    ++total_nodes;
    for (const ProfileNode& c : n->children) walk.push_back(&c);
  }
  std::string title = fmt::format(
      "\nenergy by span (inclusive, largest first; share = of the {} "
      "total{}",
      format_energy(root.energy_j),
      columns.provenance ? "" : fmt::format("; every node {}", to_string(root.provenance)));
  if (shown < total_nodes) {
    std::string limits;
    if (l.max_depth >= 0)
      limits += fmt::format(", {} level{}", l.max_depth, l.max_depth == 1 ? "" : "s");
    if (l.max_children != kNoLimit) {
      limits +=
          fmt::format(", {} {} a node", l.max_children, l.max_children == 1 ? "child" : "children");
    }
    title += fmt::format("; {} of {} nodes shown{}", shown, total_nodes, limits);
  }
  title += "):";
  out += paragraph(title, l, "", "");
  if (split_hidden) {
    out += paragraph("(no static/dynamic split: the idle baseline was estimated, not measured)", l);
  }
  std::vector<std::string> header{"node", "energy"};
  if (columns.band) header.emplace_back("±");
  header.insert(header.end(), {"share", "% of parent", "power", "time", "calls"});
  if (columns.provenance) header.emplace_back("provenance");
  if (columns.static_dynamic) {
    header.emplace_back("static");
    header.emplace_back("dynamic");
  }
  if (columns.spread) header.emplace_back("per repetition");
  // What gives way to the names on a narrow terminal, least needed first; energy, the shares
  // and the provenance always stay.
  static const std::vector<std::vector<std::string_view>> kGiveWay{
      {"per repetition"}, {"static", "dynamic"}, {"calls"}, {"power"}, {"time"}};
  std::vector<std::string> left_out;
  const std::string table = named_table(header, rows, l, kGiveWay, &left_out);
  if (!left_out.empty()) {
    out += paragraph(fmt::format("(left out to fit {} columns: {}; the full view has them)",
                                 l.width, joined(left_out, ", ")),
                     l);
  }
  out += table;
}

// ---- attribution and warnings

void write_attribution(const Profile& p, const TextViewOptions& o, const TextLayout& l,
                       std::string& out) {
  if (p.attribution.empty()) return;
  out += "\nattribution:\n";
  for (const AttributionRecord& a : p.attribution) {
    out += paragraph(
        fmt::format("{}: {} — {}", a.channel_id, recorded_method_name(a.method), a.reason), l, "  ",
        "    ");
    if (o.attribution_diagnostics) {
      std::string diag;
      for (const auto& [key, value] : diagnostics_by_name(a.diagnostics)) {
        // Per-class figures are many; the JSON has them.
        if (key.starts_with("power_w:") || key.starts_with("se_w:")) continue;
        diag += fmt::format("{}{}={:.3g}", diag.empty() ? "" : ", ", key, value);
      }
      if (!diag.empty()) out += paragraph("diagnostics: " + diag, l, "    ", "      ");
    }
    for (const std::string& note : a.notes) out += paragraph("note: " + note, l, "    ", "      ");
  }
}

void write_warnings(const Profile& p, const TextLayout& l, std::string& out) {
  std::set<std::string_view> seen;
  std::string lines;
  for (const std::string& w : p.warnings) {
    if (seen.insert(w).second) lines += paragraph("warning: " + w, l, "", "  ");
  }
  if (!lines.empty()) out += '\n' + lines;
}

}  // namespace

Result<std::string> write_text(const Profile& profile, const ReportOptions& options) {
  const TextViewOptions& o = options.text;
  const TextLayout l = layout_of(o);
  std::string out;
  if (o.headline) write_headline(profile, o, l, out);
  if (o.channels) write_channels(profile, o, l, out);
  if (o.epochs) write_epochs(profile, o, l, out);
  if (o.channels) write_ranks(profile, l, out);
  if (o.tree) {
    if (profile.tree && o.top_operators > 0) {
      write_top_operators(*profile.tree, o.top_operators, l, out);
    }
    write_tree(profile, l, out);
  }
  if (o.attribution) write_attribution(profile, o, l, out);
  if (o.warnings) write_warnings(profile, l, out);
  // A section that starts the output needs no blank line before it.
  if (!out.empty() && out.front() == '\n') out.erase(0, 1);
  // What the sections above did not escape (a channel id, a provenance detail) is escaped here:
  // the view holds no control character of its own but the newline.
  return escape_control_characters(out);
}

}  // namespace jouleprof::report
