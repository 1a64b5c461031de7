// The FLOPs-based baseline DeepEn2023 compares against: energy_mJ = a · FLOPs + b, fitted by
// ordinary least squares on the training split. Only kernel types with a FLOPs formula (conv,
// dwconv, fc) have one.
#pragma once

#include <span>

#include "jouleprof/result.hpp"

namespace jouleprof::predict {

struct FlopsLinearModel {
  double mj_per_flop = 0.0;
  double intercept_mj = 0.0;

  double predict_mj(double flops) const { return mj_per_flop * flops + intercept_mj; }
};

// Fails when fewer than two distinct FLOPs values make the line undetermined.
Result<FlopsLinearModel> fit_flops_linear(std::span<const double> flops,
                                          std::span<const double> energy_mj);

}  // namespace jouleprof::predict
