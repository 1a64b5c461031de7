#include <fmt/format.h>

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
  return e;
}

}  // namespace jouleprof
