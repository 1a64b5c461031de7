#include "predict/flops_baseline.hpp"

namespace jouleprof::predict {

Result<FlopsLinearModel> fit_flops_linear(std::span<const double> flops,
                                          std::span<const double> energy_mj) {
  const std::size_t n = flops.size();
  if (n != energy_mj.size() || n < 2) {
    return invalid_input("FLOPs baseline", "samples", std::to_string(n),
                         "needs two or more (FLOPs, energy) pairs");
  }
  double mean_x = 0.0, mean_y = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    mean_x += flops[i];
    mean_y += energy_mj[i];
  }
  mean_x /= static_cast<double>(n);
  mean_y /= static_cast<double>(n);
  double sxx = 0.0, sxy = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    sxx += (flops[i] - mean_x) * (flops[i] - mean_x);
    sxy += (flops[i] - mean_x) * (energy_mj[i] - mean_y);
  }
  if (sxx <= 0.0) {
    return invalid_input("FLOPs baseline", "FLOPs", "constant", "all samples have the same FLOPs");
  }
  FlopsLinearModel m;
  m.mj_per_flop = sxy / sxx;
  m.intercept_mj = mean_y - m.mj_per_flop * mean_x;
  return m;
}

}  // namespace jouleprof::predict
