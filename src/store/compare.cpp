// Node-by-node comparison of two runs and the energy-budget check.
#include "jouleprof/compare.hpp"

#include <fmt/format.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <optional>

#include "core/figure_bounds.hpp"
#include "core/parse.hpp"
#include "core/quantity_text.hpp"

namespace jouleprof {

std::string_view to_string(EnergyFigure f) {
  return f == EnergyFigure::kProcesses ? "observed processes (attributed)" : "machine";
}

EnergySnapshot snapshot_of(const Profile& profile, std::string label) {
  return EnergySnapshot{
      std::move(label),          energy_total_of(profile),   profile.total_process_energy_j(),
      node_energies_of(profile), profile.total_provenance(), profile.total_energy_band()};
}

namespace {

// The input half of the plausibility gate: a total of 1e308 J would print as a change of +inf J
// and a budget of -5e+306 J.
Result<EnergySnapshot> plausible_snapshot(EnergySnapshot s, std::string_view where) {
  JP_RETURN_IF_ERROR(check_figure(FigureKind::kEnergy, where, "total energy", s.total_energy_j));
  if (s.process_energy_j) {
    JP_RETURN_IF_ERROR(
        check_figure(FigureKind::kEnergy, where, "process energy", *s.process_energy_j));
  }
  for (const NodeEnergy& n : s.nodes) {
    JP_RETURN_IF_ERROR(check_figure(FigureKind::kEnergy, where,
                                    fmt::format("energy of node '{}'", n.path), n.energy_j));
  }
  return s;
}

}  // namespace

Result<EnergySnapshot> load_snapshot(const std::string& reference, const std::string& db_path) {
  std::error_code ec;
  if (std::filesystem::is_regular_file(reference, ec)) {
    JP_TRY(Profile profile, read_profile_json(reference));
    return plausible_snapshot(snapshot_of(profile, reference), reference);
  }
  const std::optional<std::int64_t> id = to_int64(reference);
  if (!id) {
    return Error(ErrorCode::kNotFound,
                 "'" + reference + "' is neither a profile file nor a run id in the history");
  }
  JP_TRY(HistoryDb db, HistoryDb::open_existing(db_path));
  JP_TRY(RunRecord run, db.run(*id));
  JP_TRY(std::vector<NodeEnergy> nodes, db.nodes(*id));
  return plausible_snapshot(EnergySnapshot{fmt::format("run {}", *id), run.total_energy_j,
                                           run.process_energy_j, std::move(nodes), run.provenance},
                            fmt::format("{}: run {}", db_path, *id));
}

RunComparison compare_runs(const EnergySnapshot& before, const EnergySnapshot& after) {
  RunComparison c{before.label,           after.label, before.total_energy_j, after.total_energy_j,
                  EnergyFigure::kMachine, {},          before.provenance,     after.provenance};
  if (before.total_band && after.total_band) {
    c.before_band = before.total_band;
    c.after_band = after.total_band;
  }
  std::map<std::string, double> before_by_path;
  for (const NodeEnergy& n : before.nodes) before_by_path[n.path] += n.energy_j;
  std::map<std::string, bool> seen;
  for (const NodeEnergy& n : after.nodes) {
    NodeDelta d;
    d.path = n.path;
    d.after_j = n.energy_j;
    if (auto it = before_by_path.find(n.path); it != before_by_path.end()) d.before_j = it->second;
    d.delta_j = n.energy_j - d.before_j.value_or(0.0);
    if (d.before_j && *d.before_j > 0.0) d.relative = d.delta_j / *d.before_j;
    seen[n.path] = true;
    c.nodes.push_back(std::move(d));
  }
  for (const NodeEnergy& n : before.nodes) {
    if (seen.contains(n.path)) continue;
    seen[n.path] = true;
    NodeDelta d;
    d.path = n.path;
    d.before_j = before_by_path[n.path];
    d.delta_j = -*d.before_j;
    if (*d.before_j > 0.0) d.relative = -1.0;
    c.nodes.push_back(std::move(d));
  }
  return c;
}

Result<RunComparison> compare_runs(const EnergySnapshot& before, const EnergySnapshot& after,
                                   EnergyFigure figure) {
  if (figure == EnergyFigure::kMachine) return compare_runs(before, after);
  for (const EnergySnapshot* s : {&before, &after}) {
    if (!s->process_energy_j) {
      return invalid_input(s->label, "process_energy_j", "none",
                           "this run observed no processes (or none of its channels has a "
                           "per-process figure): compare the machine's figure instead");
    }
  }
  RunComparison c{before.label,
                  after.label,
                  *before.process_energy_j,
                  *after.process_energy_j,
                  EnergyFigure::kProcesses,
                  {},
                  before.provenance,
                  after.provenance};
  return c;
}

std::vector<std::string> provenance_notes(const RunComparison& c) {
  std::vector<std::string> notes;
  const auto side = [&](const std::string& label, Provenance p) {
    if (is_modelled(p)) {
      notes.push_back(fmt::format("{}: its energy is {}, not measured", label, to_string(p)));
    }
  };
  side(c.before_label, c.before_provenance);
  side(c.after_label, c.after_provenance);
  if (c.before_provenance != c.after_provenance) {
    notes.push_back(
        fmt::format("the two runs' energies come from different kinds of source ({} "
                    "vs {}): the change is partly the method's",
                    to_string(c.before_provenance), to_string(c.after_provenance)));
  }
  return notes;
}

Status check_same_provenance(const RunComparison& c) {
  if (c.before_provenance == c.after_provenance) return Status::Ok();
  return Error(ErrorCode::kInvalidInput,
               fmt::format("cannot check an energy budget between {} ({}) and {} ({}): a {} "
                           "total against a {} one measures the methods, not the code",
                           c.before_label, to_string(c.before_provenance), c.after_label,
                           to_string(c.after_provenance), to_string(c.before_provenance),
                           to_string(c.after_provenance)));
}

Result<EnergyBudget> parse_budget(std::string_view text) {
  std::string_view t = trim_ascii_space(text);
  EnergyBudget b;
  if (t.ends_with('%')) {
    b.kind = EnergyBudget::Kind::kRelative;
    t.remove_suffix(1);
  } else if (t.ends_with('J')) {
    b.kind = EnergyBudget::Kind::kAbsolute;
    t.remove_suffix(1);
  } else {
    return invalid_input("energy budget", "budget", text,
                         "needs a unit: a percentage like 5% or joules like 2.5J");
  }
  const std::optional<double> parsed = to_number(t);
  const double value = parsed.value_or(-1.0);
  if (value < 0.0) {
    return invalid_input("energy budget", "budget", text,
                         "is not a non-negative number with % or J");
  }
  b.value = b.kind == EnergyBudget::Kind::kRelative ? value / 100.0 : value;
  return b;
}

BudgetVerdict check_budget(const RunComparison& c, const EnergyBudget& budget) {
  BudgetVerdict v;
  v.allowed_increase_j =
      budget.kind == EnergyBudget::Kind::kRelative ? budget.value * c.before_total_j : budget.value;
  v.within_uncertainty = c.before_band && c.after_band &&
                         c.before_band->contains(c.after_total_j) &&
                         c.after_band->contains(c.before_total_j);
  v.exceeded = !v.within_uncertainty && c.delta_j() > v.allowed_increase_j;
  const std::string budget_text =
      budget.kind == EnergyBudget::Kind::kRelative
          ? fmt::format("{:g} % = {:.6g} J", budget.value * 100.0, v.allowed_increase_j)
          : fmt::format("{:.6g} J", v.allowed_increase_j);
  const std::string change =
      c.relative() ? fmt::format("{:+.6g} J ({:+.2f} %)", c.delta_j(), *c.relative() * 100.0)
                   : fmt::format("{:+.6g} J", c.delta_j());
  v.explanation = fmt::format(
      "{} energy {} -> {} J: {} against a budget of {}: {}", to_string(c.figure),
      fmt::format("{:.6g}", c.before_total_j), fmt::format("{:.6g}", c.after_total_j), change,
      budget_text,
      v.within_uncertainty ? fmt::format("within uncertainty (each total lies in the other's 95 % "
                                         "interval: {} and {})",
                                         format_uncertainty(c.before_band, c.before_total_j),
                                         format_uncertainty(c.after_band, c.after_total_j))
      : v.exceeded         ? "REGRESSION"
                           : "within budget");
  return v;
}

}  // namespace jouleprof
