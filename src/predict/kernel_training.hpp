// Training the kernel predictors of one device from a measured kernel data set, with the
// held-out evaluation train-predictor prints: per predictor type a seeded split (train_fraction
// for training, the rest held out), then the random forest, gradient boosting and the
// FLOPs-linear baseline each fitted on the training part and scored on the held-out part.
// The bundle keeps the chosen regressor's models (fitted on the training part only, so the
// reported metrics are those of the bundle's models).
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "predict/kernel_dataset.hpp"
#include "predict/predictor_bundle.hpp"

namespace jouleprof::predict {

struct TrainOptions {
  double train_fraction = 0.8;  // the paper's 80 % / 20 % split
  RegressorOptions regressor;   // seed, target transform, forest and boosting settings
  RegressorKind bundle_regressor = RegressorKind::kRandomForest;
  // Types with fewer samples are skipped (and listed): a split needs a few on each side.
  std::size_t min_samples_per_type = 5;
};

struct TypeEvaluation {
  std::string type;
  std::vector<std::string> features;
  std::size_t n_train = 0;
  std::size_t n_test = 0;
  AccuracyMetrics forest;
  AccuracyMetrics boosting;
  std::optional<AccuracyMetrics> flops_baseline;  // types without a FLOPs formula have none
};

struct TrainingResult {
  std::vector<TypeEvaluation> evaluations;
  std::vector<std::string> skipped;  // "type (n samples)"
  PredictorBundle bundle;
};

// Seeded split of n indices: the first round(fraction·n) of a Fisher–Yates shuffle train, the
// rest test (at least one each when n ≥ 2 and fraction < 1).
std::pair<std::vector<std::size_t>, std::vector<std::size_t>> split_indices(std::size_t n,
                                                                            double fraction,
                                                                            std::uint64_t seed);

Result<TrainingResult> train_kernel_predictors(std::span<const KernelSample> samples,
                                               const TrainOptions& options);

}  // namespace jouleprof::predict
