// A predictor bundle: the trained kernel predictors of one device, as a versioned directory
//   <dir>/manifest.json      format name, version, regressor, target transform, seed, split,
//                            per kernel type: model file, sample counts, held-out metrics, sources
//   <dir>/feature_spec.json  per kernel type: the feature set and the feature names in order
//   <dir>/models/<type>.json one XGBoost model per kernel type (XGBoost's JSON format)
// Loading checks the format and version and that each type's features are the ones this build
// computes, so a bundle never silently receives features in another order. A loaded bundle
// predicts exactly what the saved one did (round-trip tested).
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "predict/metrics.hpp"
#include "predict/prediction_interval.hpp"
#include "predict/xgb_regressor.hpp"

namespace jouleprof::predict {

inline constexpr std::string_view kBundleFormat = "jouleprof-kernel-predictor";
inline constexpr int kBundleVersion = 1;

struct KernelPredictor {
  std::string type;
  std::vector<std::string> features;
  XgbRegressor model;
  std::size_t n_train = 0;
  std::size_t n_test = 0;
  AccuracyMetrics test;  // on the held-out split (n = 0 when nothing was held out)
  std::vector<std::string> sources;
  // From the training part's cross-validation residuals; absent in bundles written before it.
  std::optional<PredictionInterval> interval;
};

struct PredictorBundle {
  RegressorKind regressor = RegressorKind::kRandomForest;
  TargetTransform target = TargetTransform::kRaw;
  std::uint64_t seed = 0;
  double train_fraction = 0.8;
  std::map<std::string, KernelPredictor> predictors;  // by predictor type
  std::string origin;  // the directory it was loaded from or saved to

  const KernelPredictor* find(const std::string& type) const;
  // "random-forest predictor bundle <dir> (format v1, seed 42)": the provenance detail of
  // every energy predicted with it.
  std::string provenance_detail() const;
};

Status save_bundle(PredictorBundle& bundle, const std::filesystem::path& dir);
Result<PredictorBundle> load_bundle(const std::filesystem::path& dir);

}  // namespace jouleprof::predict
