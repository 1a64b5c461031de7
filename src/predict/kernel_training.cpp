#include "predict/kernel_training.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <set>

#include "predict/flops_baseline.hpp"
#include "predict/simple_baselines.hpp"

namespace jouleprof::predict {

std::pair<std::vector<std::size_t>, std::vector<std::size_t>> split_indices(std::size_t n,
                                                                            double fraction,
                                                                            std::uint64_t seed) {
  std::vector<std::size_t> order(n);
  for (std::size_t i = 0; i < n; ++i) order[i] = i;
  // mt19937_64's output is fixed by the standard; the distribution classes are not, so the
  // bounded draw is done here to keep splits identical across standard libraries.
  std::mt19937_64 rng(seed);
  for (std::size_t i = n; i > 1; --i) {
    const std::size_t j = static_cast<std::size_t>(rng() % i);
    std::swap(order[i - 1], order[j]);
  }
  std::size_t n_train = static_cast<std::size_t>(std::llround(fraction * static_cast<double>(n)));
  if (fraction < 1.0 && n >= 2) n_train = std::clamp<std::size_t>(n_train, 1, n - 1);
  n_train = std::min(n_train, n);
  std::vector<std::size_t> train(order.begin(),
                                 order.begin() + static_cast<std::ptrdiff_t>(n_train));
  std::vector<std::size_t> test(order.begin() + static_cast<std::ptrdiff_t>(n_train), order.end());
  return {train, test};
}

namespace {

struct TypeData {
  std::vector<std::vector<double>> features;
  std::vector<double> energy_mj;
  std::vector<double> flops;   // empty when the type has no FLOPs formula
  std::vector<double> params;  // likewise
  std::set<std::string> sources;
};

FeatureMatrix rows_of(const TypeData& data, std::span<const std::size_t> indices) {
  FeatureMatrix m;
  for (std::size_t i : indices) m.add_row(data.features[i]);
  return m;
}

std::vector<double> pick(std::span<const double> values, std::span<const std::size_t> indices) {
  std::vector<double> out;
  out.reserve(indices.size());
  for (std::size_t i : indices) out.push_back(values[i]);
  return out;
}

Result<AccuracyMetrics> evaluate(const XgbRegressor& model, const TypeData& data,
                                 std::span<const std::size_t> test) {
  JP_TRY(auto predicted, model.predict_mj(rows_of(data, test)));
  return accuracy_metrics(pick(data.energy_mj, test), predicted);
}

// Folds of the k-nearest-neighbour baseline's choice of k.
constexpr int kKnnFolds = 5;
// Folds whose residuals set the prediction interval's width.
constexpr std::size_t kIntervalFolds = 5;

// |ln(y / ŷ)| of each training kernel, predicted by the kept regressor fitted without its fold
// (the training part is already shuffled, so folds are every kIntervalFolds-th kernel).
Result<std::vector<double>> cross_validation_residuals(const TypeData& data,
                                                       std::span<const std::size_t> train,
                                                       const RegressorOptions& options) {
  std::vector<double> residuals;
  for (std::size_t f = 0; f < kIntervalFolds; ++f) {
    std::vector<std::size_t> fit, held;
    for (std::size_t p = 0; p < train.size(); ++p) {
      (p % kIntervalFolds == f ? held : fit).push_back(train[p]);
    }
    JP_TRY(XgbRegressor model,
           XgbRegressor::train(rows_of(data, fit), pick(data.energy_mj, fit), options));
    JP_TRY(const std::vector<double> predicted, model.predict_mj(rows_of(data, held)));
    for (std::size_t i = 0; i < held.size(); ++i) {
      const double y = data.energy_mj[held[i]];
      if (y > 0.0 && predicted[i] > 0.0) residuals.push_back(std::abs(std::log(y / predicted[i])));
    }
  }
  return residuals;
}

}  // namespace

std::optional<BaselineVerdict> compare_with_baselines(const TypeEvaluation& e,
                                                      RegressorKind regressor) {
  BaselineVerdict v;
  const bool forest = regressor == RegressorKind::kRandomForest;
  v.regressor = forest ? "random-forest" : "boosting";
  v.rmspe_pct = forest ? e.forest.rmspe_pct : e.boosting.rmspe_pct;
  const auto consider = [&](const std::optional<AccuracyMetrics>& m, std::string name) {
    if (m && (v.best_baseline.empty() || m->rmspe_pct < v.best_baseline_rmspe_pct)) {
      v.best_baseline = std::move(name);
      v.best_baseline_rmspe_pct = m->rmspe_pct;
    }
  };
  consider(e.knn, fmt::format("knn (k={})", e.knn_k));
  consider(e.log_linear, "log-linear");
  consider(e.flops_baseline, "flops-linear");
  if (v.best_baseline.empty()) return std::nullopt;
  v.reduction_pct = v.best_baseline_rmspe_pct > 0.0
                        ? 100.0 * (1.0 - v.rmspe_pct / v.best_baseline_rmspe_pct)
                        : 0.0;
  v.meets_margin = v.reduction_pct >= kBaselineMarginPct;
  if (v.meets_margin) {
    v.text = fmt::format(
        "{}: {} RMSPE {:.1f} % is {:.0f} % below the best simple baseline, {} ({:.1f} %)", e.type,
        v.regressor, v.rmspe_pct, v.reduction_pct, v.best_baseline, v.best_baseline_rmspe_pct);
  } else if (v.rmspe_pct < v.best_baseline_rmspe_pct) {
    v.text = fmt::format(
        "{}: {} does NOT beat the best simple baseline by {:.0f} %: {} has RMSPE {:.1f} %, the {} "
        "{:.1f} % (only {:.0f} % lower)",
        e.type, v.regressor, kBaselineMarginPct, v.best_baseline, v.best_baseline_rmspe_pct,
        v.regressor, v.rmspe_pct, v.reduction_pct);
  } else {
    v.text = fmt::format(
        "{}: {} does NOT beat the simple baselines: {} wins with RMSPE {:.1f} % against the {}'s "
        "{:.1f} %",
        e.type, v.regressor, v.best_baseline, v.best_baseline_rmspe_pct, v.regressor, v.rmspe_pct);
  }
  return v;
}

Result<TrainingResult> train_kernel_predictors(std::span<const KernelSample> samples,
                                               const TrainOptions& options) {
  if (!(options.train_fraction > 0.0 && options.train_fraction <= 1.0)) {
    return invalid_input("train-predictor", "split", fmt::format("{}", options.train_fraction),
                         "must be in (0, 1]");
  }
  std::map<std::string, TypeData> by_type;
  for (const KernelSample& s : samples) {
    const std::string type = predictor_type(s.config.op);
    auto features = features_of(s.config);
    if (!features) return features.error().with_context(s.source);
    TypeData& data = by_type[type];
    data.features.push_back(std::move(features).value());
    data.energy_mj.push_back(s.energy_mj);
    if (auto flops = kernel_flops(s.config)) data.flops.push_back(*flops);
    if (auto params = kernel_params(s.config)) data.params.push_back(*params);
    data.sources.insert(sample_origin(s));
  }
  TrainingResult result;
  result.bundle.regressor = options.bundle_regressor;
  result.bundle.target = options.regressor.target;
  result.bundle.seed = options.regressor.seed;
  result.bundle.train_fraction = options.train_fraction;
  for (const auto& [type, data] : by_type) {
    const std::size_t n = data.energy_mj.size();
    if (n < options.min_samples_per_type) {
      result.skipped.push_back(fmt::format("{} ({} samples)", type, n));
      continue;
    }
    auto [train, test] = split_indices(n, options.train_fraction, options.regressor.seed);
    const FeatureMatrix x_train = rows_of(data, train);
    const std::vector<double> y_train = pick(data.energy_mj, train);

    TypeEvaluation eval;
    eval.type = type;
    eval.features = feature_names(feature_set_of(type));
    eval.n_train = train.size();
    eval.n_test = test.size();

    RegressorOptions forest_options = options.regressor;
    forest_options.kind = RegressorKind::kRandomForest;
    JP_TRY(XgbRegressor forest, XgbRegressor::train(x_train, y_train, forest_options));
    JP_TRY(eval.forest, evaluate(forest, data, test));

    RegressorOptions boosting_options = options.regressor;
    boosting_options.kind = RegressorKind::kBoosting;
    JP_TRY(XgbRegressor boosting, XgbRegressor::train(x_train, y_train, boosting_options));
    JP_TRY(eval.boosting, evaluate(boosting, data, test));

    if (data.flops.size() == n) {
      auto line = fit_flops_linear(pick(data.flops, train), y_train);
      if (line) {
        std::vector<double> predicted;
        for (std::size_t i : test) predicted.push_back(line->predict_mj(data.flops[i]));
        eval.flops_baseline = accuracy_metrics(pick(data.energy_mj, test), predicted);
      }
    }

    if (data.flops.size() == n && data.params.size() == n) {
      auto power_law =
          LogLinearModel::fit(pick(data.flops, train), pick(data.params, train), y_train);
      if (power_law) {
        std::vector<double> predicted;
        for (std::size_t i : test) {
          predicted.push_back(power_law->predict_mj(data.flops[i], data.params[i]));
        }
        eval.log_linear = accuracy_metrics(pick(data.energy_mj, test), predicted);
      }
    }
    std::vector<std::vector<double>> train_rows;
    for (std::size_t i : train) train_rows.push_back(data.features[i]);
    if (auto knn = KnnRegressor::fit(train_rows, y_train, kKnnCandidates, kKnnFolds,
                                     options.regressor.seed)) {
      std::vector<double> predicted;
      for (std::size_t i : test) predicted.push_back(knn->predict_mj(data.features[i]));
      eval.knn = accuracy_metrics(pick(data.energy_mj, test), predicted);
      eval.knn_k = knn->k;
    }

    const bool keep_forest = options.bundle_regressor == RegressorKind::kRandomForest;
    if (train.size() >= 2 * kIntervalFolds) {
      RegressorOptions kept = options.regressor;
      kept.kind = options.bundle_regressor;
      JP_TRY(const std::vector<double> residuals, cross_validation_residuals(data, train, kept));
      PredictionInterval interval;
      interval.log_half_width = conformal_log_half_width(residuals, interval.level);
      if (!test.empty()) {
        JP_TRY(const std::vector<double> predicted,
               (keep_forest ? forest : boosting).predict_mj(rows_of(data, test)));
        interval.held_out_coverage_pct =
            interval_coverage_pct(pick(data.energy_mj, test), predicted, interval.log_half_width);
      }
      eval.interval = interval;
    }
    KernelPredictor predictor{type,
                              eval.features,
                              keep_forest ? std::move(forest) : std::move(boosting),
                              eval.n_train,
                              eval.n_test,
                              keep_forest ? eval.forest : eval.boosting,
                              std::vector<std::string>(data.sources.begin(), data.sources.end()),
                              eval.interval};
    result.bundle.predictors.emplace(type, std::move(predictor));
    result.evaluations.push_back(std::move(eval));
  }
  if (result.evaluations.empty()) {
    return invalid_input("train-predictor", "kernels", std::to_string(samples.size()) + " samples",
                         "no kernel type has enough samples to train a predictor");
  }
  return result;
}

}  // namespace jouleprof::predict
