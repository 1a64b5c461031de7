// Energy budgets that know noise: a candidate's runs against the last runs of a baseline (a
// branch or a label in the history), with a 95 % confidence interval of the difference, so that
// the run-to-run spread of a noisy machine neither fails a good change nor hides a real
// regression. Behind `jouleprof compare --baseline main --last 10 --budget 5%` (docs/history.md).
//
//   JP_TRY(auto c, jouleprof::compare_run_groups(baseline_runs, candidate_runs));
//   const jouleprof::NoiseVerdict v = jouleprof::check_noise_budget(c, budget);
//
// The interval is Welch's: each side's mean with its own variance and degrees of freedom. A run's
// own 95 % interval (a profile's energy_j_low/high) sets a floor under its side's spread, and
// lets a side of one run have a variance at all; a side of one run without one is an error.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "jouleprof/compare.hpp"
#include "jouleprof/history.hpp"
#include "jouleprof/result.hpp"

namespace jouleprof {

// One run as a group comparison sees it.
struct RunSample {
  std::string label;  // "run 12"
  double energy_j = 0.0;
  // The run's own 95 % interval of energy_j, when its profile had one.
  std::optional<double> low_j;
  std::optional<double> high_j;
  Provenance provenance = Provenance::kMeasured;
  // What measured it: its top-level channel ids, comma-separated and sorted ("nvml:0:energy,
  // rapl:package-0"); runs on other sources or devices differ here.
  std::string channels;
};
RunSample run_sample_of(const RunRecord& run);
RunSample run_sample_of(const Profile& profile, std::string label);

struct GroupComparison {
  std::size_t baseline_runs = 0;
  std::size_t candidate_runs = 0;
  double baseline_mean_j = 0.0;
  double candidate_mean_j = 0.0;
  double difference_j = 0.0;  // candidate − baseline means
  double low_j = 0.0;         // the difference's 95 % interval
  double high_j = 0.0;
  // Welch–Satterthwaite, rounded down; 0 stands for "as good as infinite" (each side rests on its
  // runs' own error bars, whose 95 % is normal).
  unsigned degrees_of_freedom = 0;

  // The difference and its interval as fractions of the baseline's mean (nullopt for a 0 J mean).
  std::optional<double> relative() const;
  std::optional<double> relative_low() const;
  std::optional<double> relative_high() const;
  bool within_noise() const { return low_j <= 0.0 && high_j >= 0.0; }
};
// Errors: an empty side; a side of one run without an error bar (no spread to judge it by).
Result<GroupComparison> compare_run_groups(std::span<const RunSample> baseline,
                                           std::span<const RunSample> candidate);

// Whether the two sides can be held to a budget: same provenance (an estimated run against a
// measured one compares methods) and the same channels (other sources or devices compare
// machines). The error names the first run that differs, from what, and says --allow-mixed.
Status check_comparable_groups(std::span<const RunSample> baseline,
                               std::span<const RunSample> candidate);

struct NoiseVerdict {
  // Fails the check: the increase exceeds the budget with 95 % confidence (the interval's low end
  // is above the allowance).
  bool exceeded = false;
  bool within_noise = false;  // the interval includes 0
  double allowed_increase_j = 0.0;
  std::string explanation;  // one line: the means, the difference with its interval, the verdict
};
NoiseVerdict check_noise_budget(const GroupComparison& comparison, const EnergyBudget& budget);

// The two sides of `compare --baseline NAME --last N`, taken from the history.
struct BaselineRequest {
  std::string baseline;   // a branch or a label
  std::size_t last = 10;  // the baseline's newest runs compared
  // Profile files or run ids; empty: the runs of `commit`, or without one the newest run.
  std::vector<std::string> candidates;
  std::string commit;
};
struct BaselineGroups {
  std::string command;  // what both sides ran: the baseline's runs are of the same command
  std::vector<RunSample> baseline;  // newest first
  std::vector<RunSample> candidate;
};
// Errors: no candidate, candidates of different commands, a reference that is neither a profile
// nor a run, the history not opening. An empty baseline is not an error here: compare_run_groups
// says so.
Result<BaselineGroups> baseline_groups(const std::string& db_location,
                                       const BaselineRequest& request);

}  // namespace jouleprof
