#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <nlohmann/json.hpp>

#include "command.hpp"
#include "jouleprof/compare.hpp"
#include "output_format.hpp"

namespace jouleprof::cli {
namespace {

std::string optional_j(const std::optional<double>& v) {
  return v ? fmt::format("{:.4f}", *v) : "-";
}

void print_text(const RunComparison& c, std::size_t top) {
  std::cout << fmt::format(
      "comparing: {}\n",
      c.figure == EnergyFigure::kMachine
          ? "the machine's energy (energy_j of the top-level channels: every process on them)"
          : "the observed processes' energy (process_energy_j: their attributed share)");
  std::cout << fmt::format(
      "before: {}  {:.4f} J ({})\nafter:  {}  {:.4f} J ({})\nchange: {:+.4f} J{}\n", c.before_label,
      c.before_total_j, to_string(c.before_provenance), c.after_label, c.after_total_j,
      to_string(c.after_provenance), c.delta_j(),
      c.relative() ? fmt::format(" ({:+.2f} %)", *c.relative() * 100.0) : "");
  for (const std::string& note : provenance_notes(c)) std::cout << "note: " << note << '\n';
  if (c.figure != EnergyFigure::kMachine) {
    std::cout << "(the trees' nodes carry the machine's energy: --figure machine compares them)\n";
  }
  std::vector<const NodeDelta*> rows;
  for (const NodeDelta& d : c.nodes) rows.push_back(&d);
  std::stable_sort(rows.begin(), rows.end(), [](const NodeDelta* a, const NodeDelta* b) {
    return std::fabs(a->delta_j) > std::fabs(b->delta_j);
  });
  if (top > 0 && rows.size() > top) rows.resize(top);
  if (rows.empty()) return;
  std::cout << fmt::format("\n{:>12} {:>12} {:>12} {:>9}  {}\n", "before J", "after J", "change J",
                           "change", "node");
  for (const NodeDelta* d : rows) {
    std::cout << fmt::format("{:>12} {:>12} {:>+12.4f} {:>9}  {}{}\n", optional_j(d->before_j),
                             optional_j(d->after_j), d->delta_j,
                             d->relative ? fmt::format("{:+.1f}%", *d->relative * 100.0) : "",
                             d->path.empty() ? "(total of the tree)" : d->path,
                             !d->before_j  ? "  [new]"
                             : !d->after_j ? "  [gone]"
                                           : "");
  }
}

nlohmann::json to_json(const RunComparison& c, const std::optional<BudgetVerdict>& verdict) {
  auto opt = [](const std::optional<double>& v) {
    return v ? nlohmann::json(*v) : nlohmann::json();
  };
  nlohmann::json nodes = nlohmann::json::array();
  for (const NodeDelta& d : c.nodes) {
    nodes.push_back({{"path", d.path},
                     {"before_j", opt(d.before_j)},
                     {"after_j", opt(d.after_j)},
                     {"delta_j", d.delta_j},
                     {"relative", opt(d.relative)}});
  }
  nlohmann::json out{{"figure", c.figure == EnergyFigure::kMachine ? "machine" : "processes"},
                     {"before",
                      {{"label", c.before_label},
                       {"total_energy_j", c.before_total_j},
                       {"provenance", to_string(c.before_provenance)}}},
                     {"after",
                      {{"label", c.after_label},
                       {"total_energy_j", c.after_total_j},
                       {"provenance", to_string(c.after_provenance)}}},
                     {"delta_j", c.delta_j()},
                     {"relative", opt(c.relative())},
                     {"notes", provenance_notes(c)},
                     {"nodes", nodes}};
  if (verdict) {
    out["budget"] = {{"allowed_increase_j", verdict->allowed_increase_j},
                     {"exceeded", verdict->exceeded},
                     {"within_uncertainty", verdict->within_uncertainty},
                     {"explanation", verdict->explanation}};
  }
  return out;
}

}  // namespace

CommandRunner add_compare_command(CLI::App& parent) {
  auto* cmd = parent.add_subcommand(
      "compare",
      "Per-node energy differences between two runs; with --budget, exit 3 when energy regressed");
  struct Options {
    std::string before;
    std::string after;
    std::string db;
    std::string budget;
    OutputFormat format = OutputFormat::kText;
    std::size_t top = 30;
    std::string figure = "machine";
    bool allow_mixed = false;
  };
  auto o = std::make_shared<Options>();
  cmd->add_option("A", o->before, "Baseline: a profile file or a run id from `jouleprof history`")
      ->required();
  cmd->add_option("B", o->after, "Candidate: a profile file or a run id")->required();
  cmd->add_option("--db", o->db,
                  "History database for run ids (default as for `jouleprof history`)");
  cmd->add_option(
      "--budget", o->budget,
      "Allowed increase of B's total energy over A's: a percentage (5%) or joules (2.5J); "
      "exceeding it exits with code 3");
  cmd->add_flag("--allow-mixed", o->allow_mixed,
                "Check --budget even when A and B come from different kinds of source (measured, "
                "estimated, simulated): the change is then partly the method's");
  add_format_option(*cmd, o->format, {OutputFormat::kText, OutputFormat::kJson}, "text or json",
                    /*short_flag=*/true);
  cmd->add_option("--top", o->top, "Nodes listed in text output, largest change first; 0 = all")
      ->capture_default_str();
  cmd->add_option("--figure", o->figure,
                  "Which total to compare (and budget): the machine's energy, or the observed "
                  "processes' attributed share of it (runs that observed processes; "
                  "docs/sharing.md)")
      ->check(CLI::IsMember({"machine", "processes"}))
      ->capture_default_str();
  return [o] {
    std::optional<EnergyBudget> budget;
    if (!o->budget.empty()) {
      auto b = parse_budget(o->budget);
      if (!b) return report_error(b.error());
      budget = *b;
    }
    const Result<std::string> db_path = history_path(o->db);
    if (!db_path) return report_error(db_path.error());
    const std::string& db = *db_path;
    auto before = load_snapshot(o->before, db);
    if (!before) return report_error(before.error());
    auto after = load_snapshot(o->after, db);
    if (!after) return report_error(after.error());
    const Result<RunComparison> compared =
        compare_runs(*before, *after,
                     o->figure == "processes" ? EnergyFigure::kProcesses : EnergyFigure::kMachine);
    if (!compared) return report_error(compared.error());
    const RunComparison& comparison = *compared;
    if (budget && !o->allow_mixed) {
      if (Status same = check_same_provenance(comparison); !same) {
        return report_error(
            Error(same.error().code(), same.error().message() + " (--allow-mixed checks anyway)"));
      }
    }
    std::optional<BudgetVerdict> verdict;
    if (budget) verdict = check_budget(comparison, *budget);
    if (o->format == OutputFormat::kJson) {
      std::cout << to_json(comparison, verdict).dump(2) << '\n';
    } else {
      print_text(comparison, o->top);
      if (verdict) std::cout << '\n' << verdict->explanation << '\n';
    }
    if (verdict && verdict->exceeded) {
      std::cerr << "jouleprof: energy budget exceeded: " << verdict->explanation << '\n';
      return kExitRegression;
    }
    return kExitOk;
  };
}

}  // namespace jouleprof::cli
