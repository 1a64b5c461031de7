// Intervals around a kernel's predicted energy, from cross-validation residuals (split conformal
// prediction): on the training part, each kernel is predicted by a model fitted without its fold,
// and the interval's half-width in ln space is the ⌈(n + 1)·level⌉-th smallest |ln(y / ŷ)| of
// those n residuals, so [ŷ·e^−h, ŷ·e^h] holds a new kernel's energy with probability about
// `level` when new kernels are like the training ones. The held-out split checks that (issue 32:
// a 90 % interval must cover at least 85 % of the held-out kernels).
#pragma once

#include <span>
#include <vector>

namespace jouleprof::predict {

inline constexpr double kIntervalLevel = 0.9;

struct PredictionInterval {
  double level = kIntervalLevel;
  double log_half_width = 0.0;          // h
  double held_out_coverage_pct = -1.0;  // share of held-out kernels inside; −1: none held out

  double low_mj(double predicted_mj) const;
  double high_mj(double predicted_mj) const;
};

// h from |ln(y / ŷ)| residuals (the largest when ⌈(n + 1)·level⌉ exceeds n; 0 with none).
double conformal_log_half_width(std::vector<double> abs_log_residuals, double level);

// Percentage of `actual` inside [ŷ·e^−h, ŷ·e^h] of the matching `predicted`.
double interval_coverage_pct(std::span<const double> actual, std::span<const double> predicted,
                             double log_half_width);

}  // namespace jouleprof::predict
