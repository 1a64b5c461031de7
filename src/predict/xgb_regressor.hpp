// Per-kernel-type regressors on XGBoost's C API (built when JOULEPROF_WITH_XGBOOST is on:
// JOULEPROF_HAS_XGBOOST is defined).
//
// Random forest (the paper's method) uses XGBoost's random-forest mode: one boosting round of
// `trees` parallel trees, each grown on a row subsample with a column subsample per split,
// learning rate 1, no leaf shrinkage — the average of the trees is the prediction. Gradient
// boosting is offered as an option. Both are seeded (DESIGN rule 10) and single-threaded by
// default, so the same data and seed give the same model.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "jouleprof/result.hpp"

namespace jouleprof::predict {

enum class RegressorKind { kRandomForest, kBoosting };
std::string_view to_string(RegressorKind kind);
Result<RegressorKind> regressor_kind_from_string(std::string_view s);

// What the trees are fitted to. kRaw is the paper's (energy in mJ); kLog fits ln(mJ), which
// weights small and large kernels alike — the paper's metrics are relative errors.
enum class TargetTransform { kRaw, kLog };
std::string_view to_string(TargetTransform t);
Result<TargetTransform> target_transform_from_string(std::string_view s);

struct ForestOptions {
  int trees = 320;                // nn-Meter's n_estimators for conv-bn-relu
  double row_subsample = 0.8;     // XGBoost's suggested random-forest setting
  double colsample_bynode = 0.8;  // features considered per split (nn-Meter: 6 of 7 ≈ 0.86)
  int max_depth = 20;             // deep trees as in a random forest (nn-Meter: 70)
  double min_child_weight = 1.0;  // one sample per leaf, as sklearn's min_samples_leaf = 1
};

struct BoostingOptions {
  int rounds = 300;
  double learning_rate = 0.1;
  int max_depth = 6;
  double row_subsample = 0.8;
  double colsample_bytree = 1.0;
};

struct RegressorOptions {
  RegressorKind kind = RegressorKind::kRandomForest;
  TargetTransform target = TargetTransform::kRaw;  // the paper fits energy itself
  std::uint64_t seed = 42;
  int threads = 1;
  ForestOptions forest;
  BoostingOptions boosting;
};

// Row-major feature rows, converted to XGBoost's float input.
struct FeatureMatrix {
  std::size_t columns = 0;
  std::vector<float> values;
  std::size_t rows() const { return columns == 0 ? 0 : values.size() / columns; }
  void add_row(std::span<const double> row);
};

class XgbRegressor {
 public:
  XgbRegressor(XgbRegressor&&) noexcept;
  XgbRegressor& operator=(XgbRegressor&&) noexcept;
  ~XgbRegressor();

  static Result<XgbRegressor> train(const FeatureMatrix& x, std::span<const double> y_mj,
                                    const RegressorOptions& options);
  // Loads a model written by save(); `target` must be the one it was trained with (the bundle's
  // manifest records it).
  static Result<XgbRegressor> load(const std::filesystem::path& path, TargetTransform target);

  Result<std::vector<double>> predict_mj(const FeatureMatrix& x) const;
  // XGBoost's JSON model format (the extension .json selects it).
  Status save(const std::filesystem::path& path) const;
  TargetTransform target() const { return target_; }

 private:
  XgbRegressor(void* booster, TargetTransform target) : booster_(booster), target_(target) {}
  void* booster_ = nullptr;
  TargetTransform target_ = TargetTransform::kRaw;
};

}  // namespace jouleprof::predict
