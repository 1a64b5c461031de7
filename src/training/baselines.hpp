// The estimates STEP and PRE are compared with (METHODS.md §5), each a plain formula:
//   ML CO2 Impact:      E = TDP × T
//   Green Algorithms:   E = (TDP × mean utilisation + 0.3725 W/GB × RAM GB) × T
//   first epoch (Carbontracker): E = E_1 × N
//   FLOPs-linear:       E = J/FLOP × training FLOPs, training FLOPs = 3 × forward FLOPs/sample
//                       × samples/epoch × N (backward ≈ 2 × forward); J/FLOP by default
//                       TDP / peak FLOP/s (the energy of a FLOP at full throughput and TDP).
#pragma once

namespace jouleprof {

// Green Algorithms' memory power per GB (Lannelongue et al.).
inline constexpr double kGreenAlgorithmsWattsPerGb = 0.3725;
// Training FLOPs per forward FLOP: forward + backward (≈ 2 × forward).
inline constexpr double kTrainingFlopsPerForwardFlop = 3.0;

double ml_co2_energy_j(double tdp_w, double duration_s);
double green_algorithms_energy_j(double tdp_w, double mean_utilisation, double ram_gb,
                                 double duration_s,
                                 double watts_per_gb = kGreenAlgorithmsWattsPerGb);
double first_epoch_energy_j(double first_epoch_j, int total_epochs);
double training_flops(double forward_gflops_per_sample, double samples_per_epoch, int epochs,
                      double flops_per_forward_flop = kTrainingFlopsPerForwardFlop);
double joules_per_flop_at_tdp(double tdp_w, double peak_fp32_tflops);
double flops_linear_energy_j(double flops, double joules_per_flop);

}  // namespace jouleprof
