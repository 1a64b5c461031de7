// PRE's training and model files (the public call is jouleprof/pre.hpp): kernel ridge regression
// with an RBF kernel on z-scored features; the target is either the average GPU power (× the
// expected duration) or the average epoch energy (× the epochs). The scaler is saved with the
// model.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "jouleprof/pre.hpp"
#include "jouleprof/result.hpp"
#include "training/gpu_specs.hpp"
#include "training/kernel_ridge.hpp"
#include "training/utilisation_power.hpp"

namespace jouleprof {

// The features as the regression's row, in kPreFeatureNames' order.
FeatureRow pre_feature_row(const PreFeatures& features);
// The GPU features from its specifications.
void set_gpu(PreFeatures& features, const GpuSpec& spec);

// One finished run: its features and what it measured.
struct PreRun {
  std::string label;         // environment/architecture/run, for reports
  std::string architecture;  // the table's architecture column, empty without one
  std::string gpu_name;
  GpuSpec gpu;  // the specifications gpu_name matched (its name is the table's, not the file's)
  PreFeatures features;
  double duration_s = 0.0;
  int epochs = 0;
  double energy_j = 0.0;  // GPU energy
  double average_power_w = 0.0;
  std::optional<double> mean_gpu_utilisation;  // 0..1, when the table has it
};

struct PreTable {
  std::vector<PreRun> runs;
  std::vector<std::string> notes;  // which columns stood in for which feature
};

// Reads a runs table. Column names of seaa2023's run_summaries.csv are understood, and short
// ones (batch_size, ram_gb, training_size, validation_size, gflops, input_height, input_width,
// gpu, duration_s, epochs, energy_j, average_power_w). GPU features come from `specs`.
Result<PreTable> read_pre_runs_csv(const std::string& path, const GpuSpecTable& specs);

double pre_target_value(const PreRun& run, PreTarget target);
// Energy from a predicted target: power × duration, or epoch energy × epochs.
double pre_energy_j(double target_value, PreTarget target, double duration_s, int epochs);

struct PreOptions {
  PreTarget target = PreTarget::kEpochEnergy;
  RandomSearchOptions search;
};

struct PreModel {
  PreTarget target = PreTarget::kEpochEnergy;
  FeatureScaler scaler;
  KernelRidge kernel_ridge;
  LinearModel linear;  // baseline on the same features
  // Power target only: the utilisation model, for an architecture the runs do not hold (absent
  // when it cannot be fitted, e.g. every run at one achieved FLOP/s).
  std::optional<UtilisationPowerModel> utilisation;
  RandomSearchResult search;
  RandomSearchOptions search_options;
  std::size_t training_runs = 0;
  std::string gpu_specs_origin;

  double predict_target(const PreFeatures& features) const;
  double predict_linear_target(const PreFeatures& features) const;
  // What makes a prediction for `features` unsupported by the training runs: a feature that was
  // the same in every run given another value, a prediction that is negative or not finite.
  std::vector<std::string> prediction_warnings(const PreFeatures& features) const;
};

// The random search's iterations are items of `progress` (see random_search_cv).
Result<PreModel> train_pre(const std::vector<PreRun>& runs, const PreOptions& options,
                           ProgressReporter* progress = nullptr);

// DIR/pre_model.json: target, feature names, scaler, α, γ, training points, coefficients, the
// linear baseline and the search settings.
Status save_pre_model(const PreModel& model, const std::string& dir);
Result<PreModel> load_pre_model(const std::string& dir);

}  // namespace jouleprof
