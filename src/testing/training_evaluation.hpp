// Accuracy of STEP, PRE and the baselines against measured training runs (the seaa2023 data of
// del Rey et al. or tables of the same shape): MAPE and RMSE per method. Used by
// eval/training (which prints the table) and by the accuracy tests.
#pragma once

#include <cstdint>
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

  const MethodScore* find(std::string_view method) const;
};

// Over every row of a runs.csv (traces read relative to its folder): the nvidia-smi log's
// training window [first sample, first sample + training duration] split equally into the
// trained epochs (no epoch times were published), then STEP, STEP power, E_1 × N, ML CO2, Green
// Algorithms (GPU part: the measured energy is GPU-only), FLOPs-linear at TDP and peak FLOP/s,
// and FLOPs-linear with J/FLOP fitted on the other runs (leave-one-out), each against the
// measured GPU energy.
Result<EvaluationReport> evaluate_step(const std::string& runs_csv, const StepOptions& options,
                                       const GpuSpecTable& specs);

// PRE on a seeded split of a runs table (run_summaries.csv): trained on 1 − test_fraction,
// scored on the rest, for both targets, with the linear baseline, ML CO2 and Green Algorithms
// (GPU part) on the same test runs.
Result<EvaluationReport> evaluate_pre(const std::string& runs_csv, double test_fraction,
                                      std::uint32_t seed, const RandomSearchOptions& search,
                                      const GpuSpecTable& specs);

// The table as eval/training and docs/training.md show it.
std::string format_report(const EvaluationReport& report);

}  // namespace jouleprof
