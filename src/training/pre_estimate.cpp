#include <fmt/format.h>

#include <cmath>

#include "core/figure_bounds.hpp"
#include "jouleprof/pre.hpp"
#include "training/gpu_specs.hpp"
#include "training/pre.hpp"

namespace jouleprof {

Result<PreEstimate> estimate_training_energy(const PreEstimateRequest& request) {
  JP_TRY(const GpuSpecTable specs, GpuSpecTable::built_in_with(request.gpu_specs_path));
  JP_TRY(const PreModel model, load_pre_model(request.model_dir));
  JP_TRY(const GpuSpec gpu, specs.find(request.gpu));
  PreFeatures features = request.features;
  set_gpu(features, gpu);

  PreEstimate e;
  e.target = model.target;
  e.prediction = model.predict_target(features);
  e.linear_prediction = model.predict_linear_target(features);
  e.warnings = model.prediction_warnings(features);
  e.gpu = gpu.name;
  e.gpu_cuda_cores = gpu.cuda_cores;
  e.gpu_memory_gb = gpu.memory_gb;
  e.gpu_tdp_w = gpu.tdp_w;
  const bool power = model.target == PreTarget::kAveragePower;
  e.unit = power ? "W" : "J per epoch";
  if (power && request.duration_s) {
    e.energy_j = pre_energy_j(e.prediction, model.target, *request.duration_s, 0);
    e.linear_energy_j = pre_energy_j(e.linear_prediction, model.target, *request.duration_s, 0);
    e.energy_rule = fmt::format("average power × {:.0f} s", *request.duration_s);
  } else if (!power && request.epochs) {
    e.energy_j = pre_energy_j(e.prediction, model.target, 0.0, *request.epochs);
    e.linear_energy_j = pre_energy_j(e.linear_prediction, model.target, 0.0, *request.epochs);
    e.energy_rule = fmt::format("epoch energy × {} epochs", *request.epochs);
  }
  if (!power) {
    // Epoch-energy models carry no utilisation model: its power needs the duration.
  } else if (!model.utilisation) {
    e.utilisation_note =
        "the model file holds no utilisation model (trained by an older jouleprof, or its runs "
        "never differed in achieved FLOP/s on one GPU)";
  } else if (!request.duration_s || !request.epochs) {
    e.utilisation_note =
        "the utilisation model needs both the duration and the epochs (its achieved FLOP/s)";
  } else {
    e.utilisation_power_w = model.utilisation->predict_power_w(
        features, *request.epochs, *request.duration_s, gpu, &e.utilisation_note);
    e.utilisation_energy_j = *e.utilisation_power_w * *request.duration_s;
    if (const auto h = model.utilisation->log_half_width) {
      e.utilisation_low_j = *e.utilisation_energy_j * std::exp(-*h);
      e.utilisation_high_j = *e.utilisation_energy_j * std::exp(*h);
    }
    if (!(*e.utilisation_power_w > 0.0) || !std::isfinite(*e.utilisation_power_w)) {
      e.warnings.push_back(fmt::format(
          "the utilisation model predicts {} W, which no run can use: the achieved FLOP/s this "
          "duration implies lies far outside the training runs' (left out)",
          *e.utilisation_power_w));
      e.utilisation_power_w.reset();
      e.utilisation_energy_j.reset();
      e.utilisation_low_j.reset();
      e.utilisation_high_j.reset();
    }
  }
  // Nothing impossible leaves: a prediction far outside the training runs can reach 1e308.
  const FigureKind target_kind = power ? FigureKind::kDevicePower : FigureKind::kEnergy;
  const auto withhold = [&](FigureKind kind, std::string_view what, double& value) {
    if (auto warning = withhold_implausible(kind, what, value)) e.warnings.push_back(*warning);
  };
  withhold(target_kind, "the kernel ridge model's prediction", e.prediction);
  withhold(target_kind, "the linear baseline's prediction", e.linear_prediction);
  if (e.energy_j) withhold(FigureKind::kEnergy, "the predicted energy", *e.energy_j);
  if (e.linear_energy_j) {
    withhold(FigureKind::kEnergy, "the linear baseline's energy", *e.linear_energy_j);
  }
  // The utilisation model's figures pass the same gate (its power is one device's).
  if (e.utilisation_power_w) {
    withhold(FigureKind::kDevicePower, "the utilisation model's power", *e.utilisation_power_w);
  }
  if (e.utilisation_energy_j) {
    withhold(FigureKind::kEnergy, "the utilisation model's energy", *e.utilisation_energy_j);
    if (std::isnan(*e.utilisation_energy_j)) {  // withheld: no interval around it either
      e.utilisation_low_j.reset();
      e.utilisation_high_j.reset();
    }
  }
  return e;
}

}  // namespace jouleprof
