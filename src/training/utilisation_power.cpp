#include "training/utilisation_power.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "training/pre.hpp"

namespace jouleprof {

namespace {

// Forward FLOPs per sample → FLOPs per training sample (forward + backward ≈ 3 × forward).
constexpr double kFlopsPerTrainingSample = 3.0;
// Keeps ln() finite for a run with no FLOPs or an unknown peak (such a run carries no slope).
constexpr double kFractionFloor = 1e-9;

double log_fraction(const PreFeatures& features, int epochs, double duration_s,
                    double peak_tflops) {
  return std::log(
      std::max(kFractionFloor, achieved_peak_fraction(features, epochs, duration_s, peak_tflops)));
}

double log_fraction(const PreRun& run) {
  return log_fraction(run.features, run.epochs, run.duration_s, run.gpu.fp32_tflops);
}

double tdp_share(const PreRun& run) { return run.average_power_w / run.features.gpu_tdp_w; }

}  // namespace

double training_run_flops(const PreFeatures& features, int epochs) {
  return features.gflops_per_sample * 1e9 *
         (kFlopsPerTrainingSample * features.training_size + features.validation_size) *
         static_cast<double>(epochs);
}

double achieved_peak_fraction(const PreFeatures& features, int epochs, double duration_s,
                              double peak_tflops) {
  if (!(duration_s > 0.0) || !(peak_tflops > 0.0)) return 0.0;
  return training_run_flops(features, epochs) / duration_s / (peak_tflops * 1e12);
}

Result<UtilisationPowerModel> UtilisationPowerModel::fit(const std::vector<PreRun>& runs,
                                                         bool per_gpu) {
  if (runs.empty()) return invalid_input("utilisation power model", "runs", "0", "no runs");
  for (const PreRun& run : runs) {
    if (!(run.features.gpu_tdp_w > 0.0)) {
      return invalid_input(run.label, "gpu_tdp_w", fmt::format("{}", run.features.gpu_tdp_w),
                           "must be positive");
    }
    if (!(run.gpu.fp32_tflops > 0.0)) {
      return invalid_input(run.label, "fp32_tflops", fmt::format("{}", run.gpu.fp32_tflops),
                           fmt::format("the {} has no peak FP32 FLOP/s in the GPU table, so the "
                                       "run's achieved share of it is unknown",
                                       run.gpu.name));
    }
  }
  // Means per group (a GPU, or all runs as one group), then the slope from the deviations inside
  // each group: the least-squares slope with one free intercept per group.
  const auto group = [&](const PreRun& run) { return per_gpu ? run.gpu.name : std::string(); };
  struct Sums {
    double x = 0.0, y = 0.0;
    std::size_t n = 0;
  };
  std::map<std::string, Sums> sums;
  for (const PreRun& run : runs) {
    Sums& s = sums[group(run)];
    s.x += log_fraction(run);
    s.y += tdp_share(run);
    ++s.n;
  }
  double sxy = 0.0, sxx = 0.0;
  for (const PreRun& run : runs) {
    const Sums& s = sums.at(group(run));
    const double n = static_cast<double>(s.n);
    const double dx = log_fraction(run) - s.x / n;
    sxy += dx * (tdp_share(run) - s.y / n);
    sxx += dx * dx;
  }
  if (!(sxx > 1e-12)) {
    return invalid_input("utilisation power model", "runs", fmt::format("{}", runs.size()),
                         "no GPU has runs at different achieved FLOP/s, so the slope of power "
                         "over ln(achieved / peak) cannot be fitted");
  }
  UtilisationPowerModel model;
  model.per_gpu = per_gpu;
  model.slope = sxy / sxx;
  double pooled = 0.0;
  for (const PreRun& run : runs) pooled += tdp_share(run) - model.slope * log_fraction(run);
  model.pooled_intercept = pooled / static_cast<double>(runs.size());
  if (per_gpu) {
    for (const auto& [name, s] : sums) {
      const double n = static_cast<double>(s.n);
      model.intercepts[name] = s.y / n - model.slope * s.x / n;
    }
  }
  return model;
}

double UtilisationPowerModel::predict_power_w(const PreRun& run, std::string* warning) const {
  return predict_power_w(run.features, run.epochs, run.duration_s, run.gpu, warning);
}

double UtilisationPowerModel::predict_power_w(const PreFeatures& features, int epochs,
                                              double duration_s, const GpuSpec& gpu,
                                              std::string* warning) const {
  double intercept = pooled_intercept;
  if (per_gpu) {
    const auto it = intercepts.find(gpu.name);
    if (it != intercepts.end()) {
      intercept = it->second;
    } else if (warning != nullptr) {
      *warning = fmt::format(
          "no training run used a {}: its power level is the pooled one of the training GPUs "
          "(leaving each architecture out, one intercept for all GPUs was 2-3x less accurate "
          "than one per GPU)",
          gpu.name);
    }
  }
  return (intercept + slope * log_fraction(features, epochs, duration_s, gpu.fp32_tflops)) *
         gpu.tdp_w;
}

Result<std::vector<double>> unseen_architecture_residuals(const std::vector<PreRun>& runs) {
  std::vector<std::string> architectures;
  for (const PreRun& run : runs) {
    if (!run.architecture.empty() && std::find(architectures.begin(), architectures.end(),
                                               run.architecture) == architectures.end()) {
      architectures.push_back(run.architecture);
    }
  }
  std::vector<double> residuals;
  if (architectures.size() < 3) return residuals;
  for (const std::string& held_out : architectures) {
    std::vector<PreRun> others;
    for (const PreRun& run : runs) {
      if (run.architecture != held_out) others.push_back(run);
    }
    JP_TRY(const UtilisationPowerModel model, UtilisationPowerModel::fit(others));
    for (const PreRun& run : runs) {
      if (run.architecture != held_out) continue;
      const double predicted = model.predict_power_w(run);
      if (predicted > 0.0 && run.average_power_w > 0.0) {
        residuals.push_back(std::abs(std::log(run.average_power_w / predicted)));
      }
    }
  }
  return residuals;
}

FeatureRow utilisation_feature_row(const PreRun& run) {
  FeatureRow row = pre_feature_row(run.features);
  row.push_back(log_fraction(run));
  return row;
}

Result<UtilisationKrrModel> UtilisationKrrModel::fit(const std::vector<PreRun>& runs,
                                                     const RandomSearchOptions& search) {
  UtilisationKrrModel model;
  JP_TRY(model.base, UtilisationPowerModel::fit(runs));
  std::vector<FeatureRow> rows;
  std::vector<double> ratios;
  for (const PreRun& run : runs) {
    const double modelled = model.base.predict_power_w(run);
    if (!(modelled > 0.0)) {
      return invalid_input(run.label, "modelled power", fmt::format("{}", modelled),
                           "the utilisation model gave no positive power for a training run");
    }
    rows.push_back(utilisation_feature_row(run));
    ratios.push_back(run.average_power_w / modelled);
  }
  model.search = random_search_cv(rows, ratios, search);
  model.scaler = FeatureScaler::fit(rows);
  std::vector<FeatureRow> scaled;
  for (const FeatureRow& row : rows) scaled.push_back(model.scaler.apply(row));
  model.ratio = KernelRidge::fit(scaled, ratios, model.search.alpha, model.search.gamma);
  return model;
}

double UtilisationKrrModel::predict_power_w(const PreRun& run) const {
  return base.predict_power_w(run) * ratio.predict(scaler.apply(utilisation_feature_row(run)));
}

}  // namespace jouleprof
