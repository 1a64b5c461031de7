#include "predict/simple_baselines.hpp"

#include <fmt/format.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>

namespace jouleprof::predict {

namespace {

struct Scaled {
  std::vector<double> mean, stdev;
  std::vector<double> apply(const std::vector<double>& row) const {
    std::vector<double> z(row.size());
    for (std::size_t j = 0; j < row.size(); ++j) {
      z[j] = (std::log1p(std::max(0.0, row[j])) - mean[j]) / stdev[j];
    }
    return z;
  }
};

Scaled fit_scale(const std::vector<std::vector<double>>& rows) {
  const std::size_t d = rows.empty() ? 0 : rows[0].size();
  Scaled s{std::vector<double>(d, 0.0), std::vector<double>(d, 0.0)};
  for (const auto& r : rows) {
    for (std::size_t j = 0; j < d; ++j) s.mean[j] += std::log1p(std::max(0.0, r[j]));
  }
  for (double& m : s.mean) m /= static_cast<double>(std::max<std::size_t>(rows.size(), 1));
  for (const auto& r : rows) {
    for (std::size_t j = 0; j < d; ++j) {
      const double v = std::log1p(std::max(0.0, r[j])) - s.mean[j];
      s.stdev[j] += v * v;
    }
  }
  for (double& v : s.stdev) {
    v = std::sqrt(v / static_cast<double>(std::max<std::size_t>(rows.size(), 1)));
    if (!(v > 1e-12)) v = 1.0;  // a constant feature: no distance along it
  }
  return s;
}

// Geometric mean of the energies of the k rows of `x` nearest to `z`.
double nearest_mean(const std::vector<std::vector<double>>& x, const std::vector<double>& log_y,
                    const std::vector<double>& z, int k) {
  std::vector<std::pair<double, std::size_t>> distance(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    double d = 0.0;
    for (std::size_t j = 0; j < z.size(); ++j) d += (x[i][j] - z[j]) * (x[i][j] - z[j]);
    distance[i] = {d, i};
  }
  const std::size_t n = std::min<std::size_t>(static_cast<std::size_t>(k), x.size());
  // Ties broken by row order, so the result does not depend on the sort's implementation.
  std::partial_sort(distance.begin(), distance.begin() + static_cast<std::ptrdiff_t>(n),
                    distance.end());
  double sum = 0.0;
  for (std::size_t i = 0; i < n; ++i) sum += log_y[distance[i].second];
  return std::exp(sum / static_cast<double>(n));
}

}  // namespace

Result<KnnRegressor> KnnRegressor::fit(const std::vector<std::vector<double>>& features,
                                       std::span<const double> energy_mj,
                                       std::span<const int> candidates, int folds,
                                       std::uint64_t seed) {
  const std::size_t n = features.size();
  if (folds < 2 || n < static_cast<std::size_t>(folds) || energy_mj.size() != n) {
    return invalid_input("k-nearest-neighbour baseline", "rows", fmt::format("{}", n),
                         fmt::format("need at least {} rows for {}-fold CV", folds, folds));
  }
  std::vector<double> log_y;
  for (double e : energy_mj) {
    if (!(e > 0.0)) {
      return invalid_input("k-nearest-neighbour baseline", "energy_mJ", fmt::format("{}", e),
                           "must be positive");
    }
    log_y.push_back(std::log(e));
  }
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::mt19937_64 rng(seed);
  for (std::size_t i = n; i > 1; --i) std::swap(order[i - 1], order[rng() % i]);
  // Per candidate k: the sum of squared relative errors over every held-out row.
  std::vector<double> squared(candidates.size(), 0.0);
  const std::size_t min_train =
      n - (n + static_cast<std::size_t>(folds) - 1) / static_cast<std::size_t>(folds);
  for (int f = 0; f < folds; ++f) {
    std::vector<std::vector<double>> train_raw;
    std::vector<double> train_y;
    std::vector<std::size_t> test;
    for (std::size_t p = 0; p < n; ++p) {
      if (p % static_cast<std::size_t>(folds) == static_cast<std::size_t>(f)) {
        test.push_back(order[p]);
      } else {
        train_raw.push_back(features[order[p]]);
        train_y.push_back(log_y[order[p]]);
      }
    }
    const Scaled scale = fit_scale(train_raw);
    std::vector<std::vector<double>> train_x;
    for (const auto& r : train_raw) train_x.push_back(scale.apply(r));
    for (std::size_t i : test) {
      const std::vector<double> z = scale.apply(features[i]);
      for (std::size_t c = 0; c < candidates.size(); ++c) {
        const double predicted = nearest_mean(train_x, train_y, z, candidates[c]);
        const double relative = (energy_mj[i] - predicted) / energy_mj[i];
        squared[c] += relative * relative;
      }
    }
  }
  KnnRegressor model;
  model.cv_rmspe_pct = std::numeric_limits<double>::infinity();
  for (std::size_t c = 0; c < candidates.size(); ++c) {
    if (candidates[c] < 1 || static_cast<std::size_t>(candidates[c]) > min_train) continue;
    const double rmspe = 100.0 * std::sqrt(squared[c] / static_cast<double>(n));
    if (rmspe < model.cv_rmspe_pct) {
      model.cv_rmspe_pct = rmspe;
      model.k = candidates[c];
    }
  }
  if (!std::isfinite(model.cv_rmspe_pct)) {
    return invalid_input("k-nearest-neighbour baseline", "k", "",
                         fmt::format("no candidate k fits {} training rows", min_train));
  }
  const Scaled scale = fit_scale(features);
  model.mean = scale.mean;
  model.stdev = scale.stdev;
  for (const auto& r : features) model.x.push_back(scale.apply(r));
  model.log_energy = std::move(log_y);
  return model;
}

double KnnRegressor::predict_mj(const std::vector<double>& features) const {
  return nearest_mean(x, log_energy, Scaled{mean, stdev}.apply(features), k);
}

Result<LogLinearModel> LogLinearModel::fit(std::span<const double> flops,
                                           std::span<const double> params,
                                           std::span<const double> energy_mj) {
  const std::size_t n = energy_mj.size();
  if (flops.size() != n || params.size() != n || n < 3) {
    return invalid_input("log-linear baseline", "rows", fmt::format("{}", n),
                         "need at least 3 kernels with FLOPs and Params");
  }
  Eigen::MatrixXd a(static_cast<Eigen::Index>(n), 3);
  Eigen::VectorXd b(static_cast<Eigen::Index>(n));
  for (std::size_t i = 0; i < n; ++i) {
    if (!(flops[i] > 0.0) || !(params[i] > 0.0) || !(energy_mj[i] > 0.0)) {
      return invalid_input("log-linear baseline", "FLOPs/Params/energy",
                           fmt::format("{}/{}/{}", flops[i], params[i], energy_mj[i]),
                           "must all be positive");
    }
    const auto row = static_cast<Eigen::Index>(i);
    a(row, 0) = 1.0;
    a(row, 1) = std::log(flops[i]);
    a(row, 2) = std::log(params[i]);
    b(row) = std::log(energy_mj[i]);
  }
  const Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(a);
  if (qr.rank() < 3) {
    return invalid_input("log-linear baseline", "FLOPs/Params", fmt::format("{} kernels", n),
                         "do not vary independently: the power law is undetermined");
  }
  const Eigen::VectorXd w = qr.solve(b);
  return LogLinearModel{w(0), w(1), w(2)};
}

double LogLinearModel::predict_mj(double flops, double params) const {
  return std::exp(intercept + flops_exponent * std::log(flops) +
                  params_exponent * std::log(params));
}

}  // namespace jouleprof::predict
