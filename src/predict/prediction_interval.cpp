#include "predict/prediction_interval.hpp"

#include <algorithm>
#include <cmath>

namespace jouleprof::predict {

double PredictionInterval::low_mj(double predicted_mj) const {
  return predicted_mj * std::exp(-log_half_width);
}

double PredictionInterval::high_mj(double predicted_mj) const {
  return predicted_mj * std::exp(log_half_width);
}

double conformal_log_half_width(std::vector<double> abs_log_residuals, double level) {
  if (abs_log_residuals.empty()) return 0.0;
  std::sort(abs_log_residuals.begin(), abs_log_residuals.end());
  const double n = static_cast<double>(abs_log_residuals.size());
  const auto rank = static_cast<std::size_t>(std::ceil((n + 1.0) * level));
  return abs_log_residuals[std::clamp<std::size_t>(rank, 1, abs_log_residuals.size()) - 1];
}

double interval_coverage_pct(std::span<const double> actual, std::span<const double> predicted,
                             double log_half_width) {
  if (actual.empty()) return 0.0;
  std::size_t inside = 0;
  for (std::size_t i = 0; i < actual.size(); ++i) {
    // Relative slack for the rounding of exp/log at the boundary.
    inside += actual[i] > 0.0 && predicted[i] > 0.0 &&
              std::abs(std::log(actual[i] / predicted[i])) <= log_half_width * (1.0 + 1e-12);
  }
  return 100.0 * static_cast<double>(inside) / static_cast<double>(actual.size());
}

}  // namespace jouleprof::predict
