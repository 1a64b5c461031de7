// Accuracy of energy predictions, as DeepEn2023 reports it (METHODS.md §4):
//   RMSE  = sqrt(mean((y − ŷ)²))                 in mJ
//   RMSPE = sqrt(mean(((y − ŷ)/y)²)) · 100        in %
//   ±t accuracy = share of samples with |y − ŷ|/y ≤ t, for t = 5, 10, 15 %.
#pragma once

#include <cstddef>
#include <span>

namespace jouleprof::predict {

// The tolerances the paper reports, as fractions.
inline constexpr double kTolerance5 = 0.05;
inline constexpr double kTolerance10 = 0.10;
inline constexpr double kTolerance15 = 0.15;

struct AccuracyMetrics {
  std::size_t n = 0;
  double rmse_mj = 0.0;
  double rmspe_pct = 0.0;
  double within_5_pct = 0.0;  // % of samples within ±5 %
  double within_10_pct = 0.0;
  double within_15_pct = 0.0;
};

// `actual` must be positive (kernel datasets reject other energies); sizes must match.
AccuracyMetrics accuracy_metrics(std::span<const double> actual, std::span<const double> predicted);

}  // namespace jouleprof::predict
