// Accuracy of STEP, PRE and the baselines against measured training runs (the seaa2023 data of
// del Rey et al. or tables of the same shape): MAPE and RMSE per method. Used by
// eval/training (which prints the table) and by the accuracy tests.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "jouleprof/result.hpp"
#include "jouleprof/step.hpp"
#include "training/gpu_specs.hpp"
#include "training/kernel_ridge.hpp"

namespace jouleprof {

struct MethodScore {
  std::string method;
  std::string scope;  // "all runs with traces", "30 % test split"
  std::size_t runs = 0;
  double mape_percent = 0.0;
  double rmse_mj = 0.0;
};

struct EvaluationReport {
  std::vector<MethodScore> scores;
  std::vector<std::string> notes;  // assumptions the figures rest on
  // Leaving architectures out: share of the unseen architectures' runs inside the utilisation
  // model's 90 % interval (its width from leaving each training architecture out in turn).
  std::optional<double> interval_coverage_percent;

  const MethodScore* find(std::string_view method) const;
  // The score of `method` on `scope` (the leave-one-architecture-out report has one per scope).
  const MethodScore* find(std::string_view method, std::string_view scope) const;
};

// Over every row of a runs.csv (traces read relative to its folder): the nvidia-smi log's
// training window [first sample, first sample + training duration] split equally into the
// trained epochs (no epoch times were published), then STEP, STEP power, E_1 × N, ML CO2, Green
// Algorithms (GPU part: the measured energy is GPU-only), FLOPs-linear at TDP and peak FLOP/s,
// and FLOPs-linear with J/FLOP fitted on the other runs (leave-one-out), each against the
// measured GPU energy. Then STEP with s, w and the stability rule chosen by `cv_folds`-fold
// cross-validation over the runs (shuffled by `cv_seed`; see testing/step_cross_validation.hpp).
Result<EvaluationReport> evaluate_step(const std::string& runs_csv, const StepOptions& options,
                                       const GpuSpecTable& specs, int cv_folds = 5,
                                       std::uint32_t cv_seed = 42);

// PRE on a seeded split of a runs table (run_summaries.csv): trained on 1 − test_fraction,
// scored on the rest, for both targets, with the linear baseline, ML CO2 and Green Algorithms
// (GPU part) on the same test runs.
Result<EvaluationReport> evaluate_pre(const std::string& runs_csv, double test_fraction,
                                      std::uint32_t seed, const RandomSearchOptions& search,
                                      const GpuSpecTable& specs);

// PRE leaving one architecture out in turn (issue 32): for each architecture of the table, every
// method is trained on the runs of the other architectures and scored on its runs (scope
// "without <architecture>"), then over all runs together (scope "all, each unseen"). Methods:
// PRE's kernel ridge (power x T), the utilisation power model with one intercept per GPU and
// with one for all GPUs, the utilisation model with kernel ridge on its ratio, each GPU's mean
// power share (no FLOP/s term), and Green Algorithms. The notes carry the floor: how far a run is
// from the mean of the other repeats of its configuration.
Result<EvaluationReport> evaluate_pre_by_architecture(const std::string& runs_csv,
                                                      const RandomSearchOptions& search,
                                                      const GpuSpecTable& specs);

// The table as eval/training and docs/training.md show it.
std::string format_report(const EvaluationReport& report);
// One row per method, one MAPE column per scope (for the leave-one-architecture-out report).
std::string format_report_by_scope(const EvaluationReport& report);

}  // namespace jouleprof
