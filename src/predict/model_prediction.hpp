// Model energy = Σ predicted kernel energies (METHODS.md §4). A kernel whose type has no
// predictor in the bundle, or whose features cannot be computed, is listed with the reason and
// makes the total incomplete: it is never counted as 0 J silently.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "jouleprof/channel.hpp"
#include "jouleprof/prediction.hpp"
#include "predict/json_graph_import.hpp"
#include "predict/predictor_bundle.hpp"

namespace jouleprof::predict {

struct KernelPrediction {
  DetectedKernel kernel;
  std::string type;              // predictor type
  std::vector<double> features;  // empty when they could not be computed
  std::optional<double> energy_mj;
  // The predictor's 90 % interval around energy_mj, when its bundle has one.
  std::optional<double> low_mj, high_mj;
  std::string unpredicted_reason;  // set when energy_mj is empty
};

struct ModelPrediction {
  std::string model;
  std::vector<KernelPrediction> kernels;
  double predicted_total_mj = 0.0;  // sum over predicted kernels only
  // Sums of the kernels' interval ends, when every predicted kernel has one: the interval if the
  // kernels' errors move together (one device, one regressor), wider than if they were
  // independent; its level is at least the kernels' only under that assumption.
  std::optional<double> predicted_low_mj, predicted_high_mj;
  bool complete = true;                    // every kernel predicted
  std::vector<std::string> missing_types;  // types without a predictor, sorted, unique
  Provenance provenance = Provenance::kPredicted;
  std::string provenance_detail;  // the bundle that predicted

  std::size_t predicted_count() const;
};

Result<ModelPrediction> predict_model(const PredictorBundle& bundle, const ModelKernels& model);

// Every model in `model_path`, its kernels detected with the options' fusion rules and layout,
// predicted with the bundle in `bundle_dir`: what `jouleprof predict` and predict_model_energy()
// do. The model is read first: a bad model is the likelier mistake, and is said without a bundle.
Result<std::vector<ModelPrediction>> predict_models(const std::string& model_path,
                                                    const std::string& bundle_dir,
                                                    const PredictionOptions& options);

}  // namespace jouleprof::predict
