// The simple baselines a kernel predictor has to beat (issue 32), beside DeepEn2023's FLOPs line:
// - k nearest neighbours: features as ln(1 + x), z-scored on the training part, Euclidean
//   distance; the prediction is the geometric mean of the k nearest kernels' energies (energies
//   span orders of magnitude, so neighbours are averaged in ln). k is chosen by seeded k-fold
//   cross-validation on the training part, by RMSPE.
// - log-linear: ln E = a + b·ln FLOPs + c·ln Params by least squares, for the types with a FLOPs
//   formula (conv, dwconv, fc): energy as a power law of work and size.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "jouleprof/result.hpp"

namespace jouleprof::predict {

struct KnnRegressor {
  int k = 1;
  std::vector<double> mean, stdev;     // of ln(1 + feature) over the training rows
  std::vector<std::vector<double>> x;  // scaled training rows
  std::vector<double> log_energy;      // ln mJ per training row
  double cv_rmspe_pct = 0.0;           // of the chosen k

  // Fits with each k of `candidates` (those below the fold's training size) scored by `folds`-fold
  // CV (rows shuffled by `seed`); fails with fewer rows than folds or a non-positive energy.
  static Result<KnnRegressor> fit(const std::vector<std::vector<double>>& features,
                                  std::span<const double> energy_mj,
                                  std::span<const int> candidates, int folds, std::uint64_t seed);
  double predict_mj(const std::vector<double>& features) const;
};

// The k tried by default.
inline constexpr int kKnnCandidates[] = {1, 2, 3, 4, 5, 7, 10, 15, 20};

struct LogLinearModel {
  double intercept = 0.0, flops_exponent = 0.0, params_exponent = 0.0;

  // Fails when a value is not positive or FLOPs and Params leave the fit undetermined.
  static Result<LogLinearModel> fit(std::span<const double> flops, std::span<const double> params,
                                    std::span<const double> energy_mj);
  double predict_mj(double flops, double params) const;
};

}  // namespace jouleprof::predict
