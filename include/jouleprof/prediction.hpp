// Predicting a model's inference energy on a device before running it (DeepEn2023, METHODS.md §4):
// the model's kernels — from ONNX, an nn-Meter graph or a kernel list, fused by the device's rules
// — each through the device's predictor bundle (`jouleprof train-predictor`). A kernel without a
// predictor is listed with the reason and the total says it is incomplete: never 0 J silently.
//
//   JP_TRY(auto models, jouleprof::predict_model_energy("resnet18.onnx", "bundles/pixel4-cpu"));
//   for (const jouleprof::PredictedModel& m : models) print(m.model, m.predicted_total_mj);
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "jouleprof/channel.hpp"
#include "jouleprof/result.hpp"

namespace jouleprof {

struct PredictionOptions {
  std::string fusion_rules_path;  // the device's fusion rules; empty: the shipped default
  std::string layout;  // "nchw" or "nhwc"; empty: NCHW for ONNX, the node's or NHWC for nn-Meter
};

struct PredictedKernel {
  std::string name;                  // the node, layer or fused group
  std::string op;                    // e.g. "conv-bn-relu"
  std::string predictor_type;        // the bundle's predictor it needs
  std::vector<std::string> members;  // the graph nodes it covers
  std::vector<double> features;      // in the predictor's order; empty when not computable
  std::vector<std::string> feature_names;
  std::optional<double> energy_mj;
  // 90 % interval from the predictor's cross-validation residuals, when its bundle has one
  // (docs/predict.md, "Intervals").
  std::optional<double> low_mj, high_mj;
  std::string unpredicted_reason;  // set when energy_mj is empty
};

struct PredictedModel {
  std::string model;
  std::vector<PredictedKernel> kernels;
  double predicted_total_mj = 0.0;  // over the predicted kernels only
  // The kernels' interval ends summed (every predicted kernel has one): the interval when their
  // errors move together, the cautious assumption for one device and one regressor.
  std::optional<double> predicted_low_mj, predicted_high_mj;
  bool complete = true;                    // every kernel predicted
  std::vector<std::string> missing_types;  // predictor types the bundle lacks
  Provenance provenance = Provenance::kPredicted;
  std::string provenance_detail;  // the bundle that predicted

  std::size_t predicted_count() const;
};

// Every model in `model_path` (.onnx, or .json holding one graph or kernel list or several),
// predicted with the bundle in `bundle_dir`. Errors name the file and what is wrong with it.
Result<std::vector<PredictedModel>> predict_model_energy(const std::string& model_path,
                                                         const std::string& bundle_dir,
                                                         const PredictionOptions& options = {});

}  // namespace jouleprof
