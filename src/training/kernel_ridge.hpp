// Regression for PRE: z-score scaling, kernel ridge regression with an RBF kernel
// k(x, y) = exp(−γ‖x − y‖²), a linear least-squares baseline, and a seeded random search of
// (α, γ) by k-fold cross-validation. Eigen stays inside kernel_ridge.cpp.
#pragma once

#include <cstdint>
#include <vector>

#include "jouleprof/progress.hpp"

namespace jouleprof {

using FeatureRow = std::vector<double>;

// Standardises each feature by its training mean and standard deviation: z = (x − mean) / stdev.
// A feature that is the same in every training row (to 1e-9 of its size) carries no information:
// its spread is left at 1 and its mean is that value, so it scales to exactly 0 for those rows,
// instead of rounding noise divided by a spread of ~1e-12 (which made a constant column blow
// predictions up to ±1e19 J).
struct FeatureScaler {
  std::vector<double> mean;
  std::vector<double> stdev;
  std::vector<bool> constant;  // per feature: the same in every training row

  static FeatureScaler fit(const std::vector<FeatureRow>& rows);
  FeatureRow apply(const FeatureRow& row) const;
};

// Dual form: ŷ(x) = y_mean + Σ_i c_i k(x, x_i), with (K + αI) c = y − y_mean. Centring y keeps
// predictions away from 0 for inputs far from the training points.
struct KernelRidge {
  double alpha = 1.0;
  double gamma = 1.0;
  double y_mean = 0.0;
  std::vector<FeatureRow> x;  // scaled training inputs
  std::vector<double> dual;

  static KernelRidge fit(const std::vector<FeatureRow>& x_scaled, const std::vector<double>& y,
                         double alpha, double gamma);
  double predict(const FeatureRow& x_scaled) const;
};

// Least squares with an intercept on scaled features; a tiny ridge (1e-8) keeps constant
// features from making the system singular.
struct LinearModel {
  double intercept = 0.0;
  std::vector<double> weights;

  static LinearModel fit(const std::vector<FeatureRow>& x_scaled, const std::vector<double>& y);
  double predict(const FeatureRow& x_scaled) const;
};

struct RandomSearchOptions {
  int iterations = 60;
  int folds = 5;
  std::uint32_t seed = 42;
  double alpha_min = 1e-6, alpha_max = 1.0;   // log-uniform
  double gamma_min = 1e-3, gamma_max = 10.0;  // log-uniform
};

struct RandomSearchResult {
  double alpha = 0.0;
  double gamma = 0.0;
  double cv_mape_percent = 0.0;  // mean absolute percentage error over the held-out folds
  int iterations = 0;            // scored; fewer than asked when stopped through the progress
};

// Scores each sampled (α, γ) by k-fold CV (the scaler refitted on each training fold) and
// returns the best. Targets must be non-zero (the score is relative). Each iteration is an item of
// `progress`; a stop asked through it ends the search with the best so far (after at least one).
RandomSearchResult random_search_cv(const std::vector<FeatureRow>& x_raw,
                                    const std::vector<double>& y,
                                    const RandomSearchOptions& options,
                                    ProgressReporter* progress = nullptr);

}  // namespace jouleprof
