#include "jouleprof/prediction.hpp"

#include <algorithm>

#include "predict/kernel_features.hpp"
#include "predict/model_prediction.hpp"

namespace jouleprof {
namespace {

PredictedKernel public_kernel(const predict::KernelPrediction& k) {
  PredictedKernel out;
  out.name = k.kernel.config.name;
  out.op = k.kernel.config.op;
  out.predictor_type = k.type;
  out.members = k.kernel.members;
  out.features = k.features;
  out.feature_names = predict::feature_names(predict::feature_set_of(k.type));
  out.energy_mj = k.energy_mj;
  out.low_mj = k.low_mj;
  out.high_mj = k.high_mj;
  out.unpredicted_reason = k.unpredicted_reason;
  return out;
}

}  // namespace

std::size_t PredictedModel::predicted_count() const {
  return static_cast<std::size_t>(
      std::count_if(kernels.begin(), kernels.end(),
                    [](const PredictedKernel& k) { return k.energy_mj.has_value(); }));
}

Result<std::vector<PredictedModel>> predict_model_energy(const std::string& model_path,
                                                         const std::string& bundle_dir,
                                                         const PredictionOptions& options) {
  JP_TRY(const std::vector<predict::ModelPrediction> predictions,
         predict::predict_models(model_path, bundle_dir, options));
  std::vector<PredictedModel> out;
  for (const predict::ModelPrediction& m : predictions) {
    PredictedModel model;
    model.model = m.model;
    for (const predict::KernelPrediction& k : m.kernels) model.kernels.push_back(public_kernel(k));
    model.predicted_total_mj = m.predicted_total_mj;
    model.predicted_low_mj = m.predicted_low_mj;
    model.predicted_high_mj = m.predicted_high_mj;
    model.complete = m.complete;
    model.missing_types = m.missing_types;
    model.provenance = m.provenance;
    model.provenance_detail = m.provenance_detail;
    out.push_back(std::move(model));
  }
  return out;
}

}  // namespace jouleprof
