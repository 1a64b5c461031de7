// STEP's s, w and stability rule chosen by k-fold cross-validation over training runs (issue 32):
// each fold's runs are projected with the setting that did best on the other folds' runs, so the
// reported error was never tuned on the runs it is measured on.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "jouleprof/result.hpp"
#include "jouleprof/step.hpp"

namespace jouleprof {

// One measured run: its per-epoch energies (all N epochs) and the measured total.
struct StepRun {
  std::vector<double> epoch_energies_j;
  double measured_j = 0.0;
};

struct StepGrid {
  std::vector<int> stable_epochs = {1, 2, 3, 5, 8, 10, 15, 20};
  std::vector<int> windows = {1, 2, 3, 5, 8, 10};
  // 0 = the fixed rule; otherwise the online detector with that coefficient of variation.
  std::vector<double> stability_cvs = {0.0, 0.02, 0.05, 0.10};
};

struct StepCrossValidation {
  double cv_mape_percent = 0.0;      // each run scored with the setting chosen without its fold
  std::vector<double> predicted_j;   // per run, with that setting
  std::vector<StepOptions> chosen;   // per fold
  StepOptions chosen_on_all;         // the setting the same rule picks from every run
  double mape_on_all_percent = 0.0;  // that setting's in-sample MAPE (tuned on these runs)
  std::size_t runs = 0;
  int folds = 0;
};

// Projects each run with only its first s + w epochs known (as STEP is used), scores MAPE against
// the measured total; ties keep the earlier grid point. Runs are shuffled into folds by `seed`.
Result<StepCrossValidation> cross_validate_step(const std::vector<StepRun>& runs,
                                                const StepGrid& grid, int folds,
                                                std::uint32_t seed);

// "s=10, w=5" or "s online (CV <= 0.05), w=5".
std::string describe_step_setting(const StepOptions& options);

}  // namespace jouleprof
