// Comparing two runs' energy, node by node, and checking an energy budget: the regression check
// behind `jouleprof compare A B --budget 5%`.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "jouleprof/history.hpp"
#include "jouleprof/result.hpp"

namespace jouleprof {

// Which total a comparison compares: the machine's (every counter counts every process on its
// device) or the observed processes' attributed share of it (docs/sharing.md).
enum class EnergyFigure : std::uint8_t { kMachine = 0, kProcesses = 1 };
std::string_view to_string(EnergyFigure f);

// What is compared of one run: its totals and its tree's nodes (from a profile or the history).
struct EnergySnapshot {
  std::string label;  // "run 12" or the profile's path
  double total_energy_j = 0.0;
  std::optional<double> process_energy_j;  // absent when the run observed no processes
  std::vector<NodeEnergy> nodes;
  Provenance provenance = Provenance::kMeasured;  // of the total (Profile::total_provenance)
  // The 95 % interval of total_energy_j (Profile::total_energy_band); absent for a run of the
  // history and a profile without one.
  std::optional<EnergyBand> total_band = std::nullopt;
};
EnergySnapshot snapshot_of(const Profile& profile, std::string label);
// `reference` is a profile file when such a file exists, else a run id in the history at
// `db_path`; anything else is an error naming it.
Result<EnergySnapshot> load_snapshot(const std::string& reference, const std::string& db_path);

struct NodeDelta {
  std::string path;                // relative to the root, "" = the root
  std::optional<double> before_j;  // absent: the node is new
  std::optional<double> after_j;   // absent: the node disappeared
  double delta_j = 0.0;            // after − before (a missing side counts as 0)
  std::optional<double> relative;  // delta / before, when before > 0
};

struct RunComparison {
  std::string before_label;
  std::string after_label;
  double before_total_j = 0.0;  // of `figure`
  double after_total_j = 0.0;
  EnergyFigure figure = EnergyFigure::kMachine;
  // The tree's nodes carry the machine's energy: compared only for the machine's figure.
  std::vector<NodeDelta> nodes;  // in the after run's tree order, then the nodes only before had
  Provenance before_provenance = Provenance::kMeasured;
  Provenance after_provenance = Provenance::kMeasured;
  // The totals' 95 % intervals, for the machine's figure when both runs have one.
  std::optional<EnergyBand> before_band = std::nullopt;
  std::optional<EnergyBand> after_band = std::nullopt;

  double delta_j() const { return after_total_j - before_total_j; }
  std::optional<double> relative() const {
    return before_total_j > 0.0 ? std::optional<double>(delta_j() / before_total_j) : std::nullopt;
  }
};
RunComparison compare_runs(const EnergySnapshot& before, const EnergySnapshot& after);
// The same for a chosen figure; kProcesses needs both runs to have observed processes (the error
// names the run that has no process figure).
Result<RunComparison> compare_runs(const EnergySnapshot& before, const EnergySnapshot& after,
                                   EnergyFigure figure);

// What a reader of the comparison must know about where its totals came from: one sentence for
// each side that is estimated, predicted or simulated, and one when the sides' provenances
// differ (a change between them then says as much about the methods as about the code).
std::vector<std::string> provenance_notes(const RunComparison& comparison);
// Whether a budget check between the two totals means anything: they must have the same
// provenance. The error names both.
Status check_same_provenance(const RunComparison& comparison);

// The increase of the total energy that is still acceptable: "5%" (of the baseline's total) or
// an absolute "2.5J" / "2.5 J".
struct EnergyBudget {
  enum class Kind { kRelative, kAbsolute };
  Kind kind = Kind::kRelative;
  double value = 0.0;  // fraction (0.05) or joules
};
Result<EnergyBudget> parse_budget(std::string_view text);

// A change whose totals each lie inside the other run's 95 % interval is within uncertainty: the
// verdict says so, and it is neither a regression nor an improvement (docs/uncertainty.md).
struct BudgetVerdict {
  bool exceeded = false;
  bool within_uncertainty = false;
  double allowed_increase_j = 0.0;
  std::string explanation;  // one line for the user, with both totals and the allowance
};
BudgetVerdict check_budget(const RunComparison& comparison, const EnergyBudget& budget);

}  // namespace jouleprof
