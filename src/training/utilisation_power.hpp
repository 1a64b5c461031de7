// A physically shaped model of a training run's average GPU power, for PRE on architectures it
// has not seen (issue 32). The kernel ridge regression of the paper interpolates between known
// configurations: with only FLOPs per sample to tell architectures apart, an unseen one lands
// far from every training point and gets the mean power (16 % MAPE leaving one architecture
// out). Power instead follows how busy the run keeps the GPU:
//
//   P / TDP = a_gpu + b · ln(achieved FLOP/s ÷ peak FP32 FLOP/s)
//
// with achieved FLOP/s = (3 × training samples + validation samples) × forward FLOPs per sample
// × epochs ÷ duration (backward ≈ 2 × forward; validation runs forward only). One slope b for
// every GPU, one intercept a_gpu per GPU (its idle-to-busy level): the slope is fitted within each
// GPU's runs (the fixed-effects estimator), so a GPU with one architecture still gets its own
// level. A GPU with no training run gets the pooled intercept, and a warning.
//
// The hybrid adds kernel ridge regression on the ratio measured / modelled power, on PRE's
// features plus ln(achieved fraction): near known configurations it learns their own deviation
// (what the random split rewards); far from them the ridge's centring returns the mean ratio,
// about 1, so the physical shape carries the prediction. Measured on seaa2023 (docs/training.md),
// the ridge helps on repeats of known configurations (0.81 % against 4.09 % on the random split)
// but not on an unseen architecture (10.40 % against 5.11 %): the deviations it learns belong to
// configurations, not to anything that carries over to a new one.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "jouleprof/pre.hpp"
#include "jouleprof/result.hpp"
#include "training/gpu_specs.hpp"
#include "training/kernel_ridge.hpp"

namespace jouleprof {

struct PreRun;  // training/pre.hpp, which holds this model in PRE's power-target model

// FLOPs a training run executes per forward FLOP of one sample: 3 per training sample (forward +
// backward ≈ 2 × forward), 1 per validation sample.
double training_run_flops(const PreFeatures& features, int epochs);

// Achieved FP32 FLOP/s over the run ÷ the GPU's peak (0 when the peak is unknown).
double achieved_peak_fraction(const PreFeatures& features, int epochs, double duration_s,
                              double peak_tflops);

struct UtilisationPowerModel {
  double slope = 0.0;                        // b, per unit of ln(fraction), in TDPs
  std::map<std::string, double> intercepts;  // a_gpu, by GpuSpec name
  double pooled_intercept = 0.0;             // a for a GPU no training run used
  bool per_gpu = true;                       // false: one intercept for every GPU
  // Half-width h in ln of the 90 % interval [P̂·e^−h, P̂·e^h] for an architecture the runs do not
  // hold: the conformal rank of unseen_architecture_residuals (set by train_pre; absent with
  // fewer than three architectures).
  std::optional<double> log_half_width;

  // Least squares over the runs; fails when a run's GPU has no peak FLOP/s or no GPU has runs at
  // two different fractions.
  static Result<UtilisationPowerModel> fit(const std::vector<PreRun>& runs, bool per_gpu = true);
  // Average GPU power in W of a run of `epochs` taking `duration_s` on `gpu`; `warning` (when
  // given) says why the prediction is weaker.
  double predict_power_w(const PreFeatures& features, int epochs, double duration_s,
                         const GpuSpec& gpu, std::string* warning = nullptr) const;
  double predict_power_w(const PreRun& run, std::string* warning = nullptr) const;
};

// |ln(P / P̂)| of every run whose table names its architecture, P̂ from the model fitted without
// that architecture's runs: the errors the model makes on an architecture it has not seen. Empty
// when the runs name fewer than three architectures.
Result<std::vector<double>> unseen_architecture_residuals(const std::vector<PreRun>& runs);

// PRE's features and ln(achieved fraction): what the residual ridge sees.
FeatureRow utilisation_feature_row(const PreRun& run);

struct UtilisationKrrModel {
  UtilisationPowerModel base;
  FeatureScaler scaler;
  KernelRidge ratio;  // measured / modelled power
  RandomSearchResult search;

  // The base model on every run, then (α, γ) by the seeded random search on the ratio.
  static Result<UtilisationKrrModel> fit(const std::vector<PreRun>& runs,
                                         const RandomSearchOptions& search);
  double predict_power_w(const PreRun& run) const;
};

}  // namespace jouleprof
