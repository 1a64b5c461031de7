#include "predict/model_prediction.hpp"

#include <algorithm>
#include <filesystem>
#include <map>

#include "predict/fusion_rules.hpp"

namespace jouleprof::predict {

std::size_t ModelPrediction::predicted_count() const {
  return static_cast<std::size_t>(
      std::count_if(kernels.begin(), kernels.end(),
                    [](const KernelPrediction& k) { return k.energy_mj.has_value(); }));
}

Result<ModelPrediction> predict_model(const PredictorBundle& bundle, const ModelKernels& model) {
  ModelPrediction out;
  out.model = model.name;
  out.provenance_detail = bundle.provenance_detail();
  // Kernels are predicted in one batch per type; `rows` remembers which kernel each row is.
  std::map<std::string, std::pair<FeatureMatrix, std::vector<std::size_t>>> batches;
  for (const DetectedKernel& kernel : model.kernels) {
    KernelPrediction p;
    p.kernel = kernel;
    p.type = predictor_type(kernel.config.op);
    auto features = features_of(kernel.config);
    if (!features) {
      p.unpredicted_reason = features.error().message();
    } else {
      p.features = std::move(features).value();
      if (bundle.find(p.type) == nullptr) {
        p.unpredicted_reason = "no predictor for kernel type " + p.type + " in the bundle";
        out.missing_types.push_back(p.type);
      } else {
        auto& batch = batches[p.type];
        batch.first.add_row(p.features);
        batch.second.push_back(out.kernels.size());
      }
    }
    out.kernels.push_back(std::move(p));
  }
  for (auto& [type, batch] : batches) {
    const KernelPredictor* predictor = bundle.find(type);
    JP_TRY(auto energies, predictor->model.predict_mj(batch.first));
    for (std::size_t i = 0; i < energies.size(); ++i) {
      KernelPrediction& k = out.kernels[batch.second[i]];
      k.energy_mj = energies[i];
      if (predictor->interval) {
        k.low_mj = predictor->interval->low_mj(energies[i]);
        k.high_mj = predictor->interval->high_mj(energies[i]);
      }
    }
  }
  bool every_interval = true;
  double low = 0.0, high = 0.0;
  for (const KernelPrediction& k : out.kernels) {
    if (k.energy_mj) {
      out.predicted_total_mj += *k.energy_mj;
      every_interval = every_interval && k.low_mj.has_value();
      low += k.low_mj.value_or(0.0);
      high += k.high_mj.value_or(0.0);
    } else {
      out.complete = false;
    }
  }
  if (every_interval && out.predicted_count() > 0) {
    out.predicted_low_mj = low;
    out.predicted_high_mj = high;
  }
  std::sort(out.missing_types.begin(), out.missing_types.end());
  out.missing_types.erase(std::unique(out.missing_types.begin(), out.missing_types.end()),
                          out.missing_types.end());
  return out;
}

Result<std::vector<ModelPrediction>> predict_models(const std::string& model_path,
                                                    const std::string& bundle_dir,
                                                    const PredictionOptions& options) {
  ModelLoadOptions load;
  JP_TRY(load.detection.rules,
         FusionRules::from_file(options.fusion_rules_path.empty()
                                    ? default_fusion_rules_path()
                                    : std::filesystem::path(options.fusion_rules_path)));
  if (!options.layout.empty()) {
    const Result<TensorLayout> layout = tensor_layout_from_string(options.layout);
    if (!layout) {
      return invalid_input("prediction", "PredictionOptions::layout", options.layout,
                           "expected nchw or nhwc");
    }
    load.layout = *layout;
  }
  JP_TRY(const std::vector<ModelKernels> models, load_model_kernels(model_path, load));
  JP_TRY(const PredictorBundle bundle, load_bundle(bundle_dir));
  std::vector<ModelPrediction> predictions;
  for (const ModelKernels& model : models) {
    JP_TRY(ModelPrediction prediction, predict_model(bundle, model));
    predictions.push_back(std::move(prediction));
  }
  return predictions;
}

}  // namespace jouleprof::predict
