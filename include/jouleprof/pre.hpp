// PRE (Pre-training Regression-based Estimation, del Rey et al., METHODS.md §5): a training run's
// energy predicted before it starts, from the model, the data and the GPU, with a model trained on
// finished runs (`jouleprof estimate train`: kernel ridge regression on z-scored features, with a
// linear baseline beside it).
//
//   jouleprof::PreEstimateRequest request;
//   request.model_dir = "pre-model";
//   request.gpu = "RTX 3090";
//   request.features.batch_size = 32;  …
//   request.epochs = 50;
//   JP_TRY(jouleprof::PreEstimate e, jouleprof::estimate_training_energy(request));
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "jouleprof/channel.hpp"
#include "jouleprof/result.hpp"

namespace jouleprof {

// What the model predicts: the run's average GPU power (energy = power × duration) or its
// average epoch energy (energy = epoch energy × epochs).
enum class PreTarget { kAveragePower, kEpochEnergy };
std::string_view to_string(PreTarget target);
std::optional<PreTarget> pre_target_from_string(std::string_view text);

// Used when a table has no input-size columns (seaa2023 does not publish them).
inline constexpr double kDefaultInputSide = 224.0;

// METHODS.md §5, in this order.
inline constexpr std::array<std::string_view, 10> kPreFeatureNames = {
    "batch_size",   "ram_gb",      "training_size",  "validation_size", "gflops_per_sample",
    "input_height", "input_width", "gpu_cuda_cores", "gpu_memory_gb",   "gpu_tdp_w"};

struct PreFeatures {
  double batch_size = 0.0;
  double ram_gb = 0.0;
  double training_size = 0.0;
  double validation_size = 0.0;
  double gflops_per_sample = 0.0;  // forward pass
  double input_height = kDefaultInputSide;
  double input_width = kDefaultInputSide;
  double gpu_cuda_cores = 0.0;  // the three GPU features come from the GPU's specifications
  double gpu_memory_gb = 0.0;
  double gpu_tdp_w = 0.0;
};

struct PreEstimateRequest {
  std::string model_dir;       // where `jouleprof estimate train --output` saved the model
  std::string gpu;             // a GPU of the specifications table, e.g. "RTX 3090"
  std::string gpu_specs_path;  // a CSV that adds to or replaces built-in specs; empty: built-in
  PreFeatures features;        // the GPU features are filled in from `gpu`
  std::optional<double> duration_s;  // for an average-power model's energy
  std::optional<int> epochs;         // for an epoch-energy model's energy
};

struct PreEstimate {
  PreTarget target = PreTarget::kEpochEnergy;
  double prediction = 0.0;         // in `unit`
  double linear_prediction = 0.0;  // the linear baseline's, same unit
  std::string unit;                // "W" or "J per epoch"
  std::string gpu;                 // the GPU as the specifications name it
  double gpu_cuda_cores = 0.0;
  double gpu_memory_gb = 0.0;
  double gpu_tdp_w = 0.0;
  // The run's energy, when the request gives what the target needs (duration or epochs).
  std::optional<double> energy_j;
  std::optional<double> linear_energy_j;
  std::string energy_rule;  // "average power × 3600 s", "epoch energy × 50 epochs"
  // The utilisation model's figures (a power-target model; needs the duration and the epochs):
  // P / TDP = a_gpu + b ln(achieved FLOP/s ÷ peak), which holds on an architecture unlike the
  // training runs' where the kernel ridge does not (docs/training.md). For a power-target model,
  // `utilisation_note` says why they are absent, or which power level they used.
  std::optional<double> utilisation_power_w;
  std::optional<double> utilisation_energy_j;
  // Its 90 % interval for an architecture the training runs do not hold (from leaving each of
  // theirs out), when the model file has one.
  std::optional<double> utilisation_low_j, utilisation_high_j;
  std::string utilisation_note;
  // What the training runs do not support: a feature that never varied given another value, a
  // prediction that is negative or not finite.
  std::vector<std::string> warnings;
  Provenance provenance = Provenance::kPredicted;
};

Result<PreEstimate> estimate_training_energy(const PreEstimateRequest& request);

}  // namespace jouleprof
