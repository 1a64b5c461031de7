#include <fmt/format.h>

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
  return e;
}

}  // namespace jouleprof
