#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <nlohmann/json.hpp>

#include "command.hpp"
#include "jouleprof/compare.hpp"
#include "jouleprof/noise_budget.hpp"
#include "number_checks.hpp"
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

nlohmann::json to_json(std::span<const RunSample> runs) {
  nlohmann::json out = nlohmann::json::array();
  for (const RunSample& r : runs) {
    out.push_back({{"label", r.label},
                   {"total_energy_j", r.energy_j},
                   {"total_energy_low_j", r.low_j ? nlohmann::json(*r.low_j) : nlohmann::json()},
                   {"total_energy_high_j", r.high_j ? nlohmann::json(*r.high_j) : nlohmann::json()},
                   {"provenance", to_string(r.provenance)},
                   {"channels", r.channels}});
  }
  return out;
}

// `compare [CANDIDATE…] --baseline NAME --last N`: the candidates' runs against the baseline's.
int compare_with_baseline(const BaselineRequest& request, const std::string& db,
                          const std::optional<EnergyBudget>& budget, bool allow_mixed,
                          OutputFormat format) {
  const Result<BaselineGroups> groups = baseline_groups(db, request);
  if (!groups) return report_error(groups.error());
  const Result<GroupComparison> compared = compare_run_groups(groups->baseline, groups->candidate);
  if (!compared) {
    return report_error(
        Error(compared.error().code(),
              fmt::format("{} (baseline '{}', command '{}')", compared.error().message(),
                          request.baseline, groups->command)));
  }
  if (budget && !allow_mixed) {
    if (Status same = check_comparable_groups(groups->baseline, groups->candidate); !same)
      return report_error(same.error());
  }
  std::optional<NoiseVerdict> verdict;
  if (budget) verdict = check_noise_budget(*compared, *budget);
  const GroupComparison& c = *compared;
  auto opt = [](const std::optional<double>& v) {
    return v ? nlohmann::json(*v) : nlohmann::json();
  };
  if (format == OutputFormat::kJson) {
    nlohmann::json out{
        {"baseline", {{"name", request.baseline}, {"runs", to_json(groups->baseline)}}},
        {"candidate", {{"runs", to_json(groups->candidate)}}},
        {"command", groups->command},
        {"baseline_mean_j", c.baseline_mean_j},
        {"candidate_mean_j", c.candidate_mean_j},
        {"difference_j", c.difference_j},
        {"interval_95_j", {c.low_j, c.high_j}},
        {"relative", opt(c.relative())},
        {"relative_interval_95", {opt(c.relative_low()), opt(c.relative_high())}},
        {"degrees_of_freedom", c.degrees_of_freedom},
        {"within_noise", c.within_noise()}};
    if (verdict) {
      out["budget"] = {{"allowed_increase_j", verdict->allowed_increase_j},
                       {"exceeded", verdict->exceeded},
                       {"within_noise", verdict->within_noise},
                       {"explanation", verdict->explanation}};
    }
    std::cout << out.dump(2) << '\n';
  } else {
    std::cout << fmt::format("command: {}\nbaseline: the last {} run(s) of '{}'\ncandidate: {}\n",
                             groups->command, groups->baseline.size(), request.baseline,
                             groups->candidate.size() == 1
                                 ? groups->candidate.front().label
                                 : fmt::format("{} runs", groups->candidate.size()));
    if (verdict) {
      std::cout << verdict->explanation << '\n';
    } else {
      std::cout << fmt::format("difference {:+.6g} J, 95 % interval [{:+.6g}, {:+.6g}] J{}\n",
                               c.difference_j, c.low_j, c.high_j,
                               c.within_noise() ? ": within noise" : "");
    }
  }
  if (verdict && verdict->exceeded) {
    std::cerr << "jouleprof: energy budget exceeded: " << verdict->explanation << '\n';
    return kExitRegression;
  }
  return kExitOk;
}

}  // namespace

CommandRunner add_compare_command(CLI::App& parent) {
  auto* cmd = parent.add_subcommand(
      "compare",
      "Per-node energy differences between two runs (A B); or, with --baseline, a candidate's runs "
      "against the last runs of a branch or label, with a 95 % interval (docs/history.md). With "
      "--budget, exit 3 when energy regressed");
  struct Options {
    std::vector<std::string> runs;
    std::string db;
    BaselineRequest baseline;
    std::string budget;
    OutputFormat format = OutputFormat::kText;
    std::size_t top = 30;
    std::string figure = "machine";
    bool allow_mixed = false;
  };
  auto o = std::make_shared<Options>();
  cmd->add_option("runs", o->runs,
                  "A B: the baseline and the candidate, each a profile file or a run id from "
                  "`jouleprof history`. With --baseline: the candidate runs (none: the runs of "
                  "--commit, else the newest run)")
      ->type_name("A B|CANDIDATE…");
  cmd->add_option("--baseline", o->baseline.baseline,
                  "Compare against the last runs of this branch or label (of the candidates' "
                  "command), with a 95 % interval: a change inside the noise never fails --budget")
      ->type_name("BRANCH|LABEL");
  cmd->add_option(
         "--last", o->baseline.last,
         fmt::format("With --baseline: how many of its newest runs (1 to {})", kMaxBaselineRuns))
      ->check(whole_number_in(1, kMaxBaselineRuns))
      ->capture_default_str();
  cmd->add_option("--commit", o->baseline.commit,
                  "With --baseline and no candidates: this commit's runs are the candidates "
                  "(default: the CI job's, GITHUB_SHA, CI_COMMIT_SHA or GIT_COMMIT)")
      ->type_name("SHA");
  cmd->add_option("--db", o->db,
                  "History database for run ids (default as for `jouleprof history`)");
  cmd->add_option(
      "--budget", o->budget,
      "Allowed increase of B's total energy over A's (with --baseline: of the candidates' mean "
      "over the baseline's, exceeded with 95 % confidence): a percentage (5%) or joules (2.5J); "
      "exceeding it exits with code 3");
  cmd->add_flag("--allow-mixed", o->allow_mixed,
                "Check --budget even when the runs come from different kinds of source (measured, "
                "estimated, simulated), or (with --baseline) different sources or devices: the "
                "change is then partly the method's or the machine's");
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
    if (!o->baseline.baseline.empty()) {
      if (o->figure != "machine") {
        report_error(invalid_input("command line", "--figure", o->figure,
                                   "--baseline compares the machine's energy only"));
        return kExitUsage;
      }
      BaselineRequest request = o->baseline;
      request.candidates = o->runs;
      if (request.candidates.empty() && request.commit.empty())
        request.commit = run_tags_from_environment("").commit;
      return compare_with_baseline(request, db, budget, o->allow_mixed, o->format);
    }
    if (o->runs.size() != 2) {
      report_error(invalid_input("command line", "runs", std::to_string(o->runs.size()),
                                 "compare takes two runs, A and B (or --baseline NAME)"));
      return kExitUsage;
    }
    auto before = load_snapshot(o->runs[0], db);
    if (!before) return report_error(before.error());
    auto after = load_snapshot(o->runs[1], db);
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
