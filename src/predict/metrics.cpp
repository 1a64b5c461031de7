#include "predict/metrics.hpp"

#include <cassert>
#include <cmath>

namespace jouleprof::predict {

AccuracyMetrics accuracy_metrics(std::span<const double> actual,
                                 std::span<const double> predicted) {
  assert(actual.size() == predicted.size());
  AccuracyMetrics m;
  m.n = actual.size();
  if (m.n == 0) return m;
  double squared = 0.0, squared_relative = 0.0;
  std::size_t within5 = 0, within10 = 0, within15 = 0;
  for (std::size_t i = 0; i < m.n; ++i) {
    const double error = actual[i] - predicted[i];
    const double relative = std::abs(error) / actual[i];
    squared += error * error;
    squared_relative += relative * relative;
    within5 += relative <= kTolerance5 ? 1 : 0;
    within10 += relative <= kTolerance10 ? 1 : 0;
    within15 += relative <= kTolerance15 ? 1 : 0;
  }
  const double n = static_cast<double>(m.n);
  m.rmse_mj = std::sqrt(squared / n);
  m.rmspe_pct = std::sqrt(squared_relative / n) * 100.0;
  m.within_5_pct = 100.0 * static_cast<double>(within5) / n;
  m.within_10_pct = 100.0 * static_cast<double>(within10) / n;
  m.within_15_pct = 100.0 * static_cast<double>(within15) / n;
  return m;
}

}  // namespace jouleprof::predict
