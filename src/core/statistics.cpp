#include "jouleprof/statistics.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

namespace jouleprof {

double student_t_95(unsigned dof) {
  // Exact table for small samples (where it matters), then the normal limit approached smoothly.
  static constexpr std::array<double, 30> kTable{
      12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
      2.201,  2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
      2.080,  2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};
  if (dof == 0) return 0.0;
  if (dof <= kTable.size()) return kTable[dof - 1];
  // Cornish-Fisher style expansion of the t quantile around z = 1.959964.
  const double z = 1.959964;
  const double d = static_cast<double>(dof);
  return z + (z * z * z + z) / (4.0 * d) +
         (5 * std::pow(z, 5) + 16 * z * z * z + 3 * z) / (96.0 * d * d);
}

RepetitionStats summarize(std::span<const double> values) {
  RepetitionStats s;
  s.n = static_cast<std::uint32_t>(values.size());
  if (values.empty()) return s;
  double sum = 0.0;
  for (double v : values) sum += v;
  s.mean = sum / static_cast<double>(values.size());
  std::vector<double> sorted(values.begin(), values.end());
  std::sort(sorted.begin(), sorted.end());
  const std::size_t mid = sorted.size() / 2;
  s.median = sorted.size() % 2 == 1 ? sorted[mid] : 0.5 * (sorted[mid - 1] + sorted[mid]);
  if (values.size() > 1) {
    double squares = 0.0;
    for (double v : values) squares += (v - s.mean) * (v - s.mean);
    s.stdev = std::sqrt(squares / static_cast<double>(values.size() - 1));
  }
  const double half_width = values.size() > 1 ? student_t_95(s.n - 1) * s.stdev /
                                                    std::sqrt(static_cast<double>(values.size()))
                                              : 0.0;
  s.ci95_low = s.mean - half_width;
  s.ci95_high = s.mean + half_width;
  return s;
}

std::optional<double> pearson_r(std::span<const double> x, std::span<const double> y) {
  const std::size_t n = std::min(x.size(), y.size());
  if (n < 2) return std::nullopt;
  double mx = 0.0;
  double my = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    mx += x[i];
    my += y[i];
  }
  mx /= static_cast<double>(n);
  my /= static_cast<double>(n);
  double sxy = 0.0;
  double sxx = 0.0;
  double syy = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    sxy += (x[i] - mx) * (y[i] - my);
    sxx += (x[i] - mx) * (x[i] - mx);
    syy += (y[i] - my) * (y[i] - my);
  }
  if (sxx <= 0.0 || syy <= 0.0) return std::nullopt;
  return sxy / std::sqrt(sxx * syy);
}

}  // namespace jouleprof
