#include "training/baselines.hpp"

namespace jouleprof {

double ml_co2_energy_j(double tdp_w, double duration_s) { return tdp_w * duration_s; }

double green_algorithms_energy_j(double tdp_w, double mean_utilisation, double ram_gb,
                                 double duration_s, double watts_per_gb) {
  return (tdp_w * mean_utilisation + watts_per_gb * ram_gb) * duration_s;
}

double first_epoch_energy_j(double first_epoch_j, int total_epochs) {
  return first_epoch_j * total_epochs;
}

double training_flops(double forward_gflops_per_sample, double samples_per_epoch, int epochs,
                      double flops_per_forward_flop) {
  return flops_per_forward_flop * forward_gflops_per_sample * 1e9 * samples_per_epoch * epochs;
}

double joules_per_flop_at_tdp(double tdp_w, double peak_fp32_tflops) {
  return peak_fp32_tflops > 0.0 ? tdp_w / (peak_fp32_tflops * 1e12) : 0.0;
}

double flops_linear_energy_j(double flops, double joules_per_flop) {
  return flops * joules_per_flop;
}

}  // namespace jouleprof
