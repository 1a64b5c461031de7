#include "training/kernel_ridge.hpp"

#include <fmt/format.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

namespace jouleprof {
namespace {

double squared_distance(const FeatureRow& a, const FeatureRow& b) {
  double d = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) d += (a[i] - b[i]) * (a[i] - b[i]);
  return d;
}

}  // namespace

FeatureScaler FeatureScaler::fit(const std::vector<FeatureRow>& rows) {
  FeatureScaler s;
  if (rows.empty()) return s;
  const std::size_t n = rows.size();
  const std::size_t d = rows[0].size();
  s.mean.assign(d, 0.0);
  s.stdev.assign(d, 0.0);
  for (const FeatureRow& r : rows) {
    for (std::size_t j = 0; j < d; ++j) s.mean[j] += r[j] / static_cast<double>(n);
  }
  for (const FeatureRow& r : rows) {
    for (std::size_t j = 0; j < d; ++j) s.stdev[j] += (r[j] - s.mean[j]) * (r[j] - s.mean[j]);
  }
  s.constant.assign(d, false);
  for (std::size_t j = 0; j < d; ++j) {
    s.stdev[j] = std::sqrt(s.stdev[j] / static_cast<double>(n));
    const double first = rows[0][j];
    const bool same = std::all_of(rows.begin(), rows.end(), [&](const FeatureRow& r) {
      return std::fabs(r[j] - first) <= 1e-9 * std::max(1.0, std::fabs(first));
    });
    if (same || s.stdev[j] <= 1e-9 * std::max(1.0, std::fabs(s.mean[j]))) {
      s.constant[j] = true;
      s.mean[j] = first;
      s.stdev[j] = 1.0;
    }
  }
  return s;
}

FeatureRow FeatureScaler::apply(const FeatureRow& row) const {
  FeatureRow out(row.size());
  for (std::size_t j = 0; j < row.size(); ++j) out[j] = (row[j] - mean[j]) / stdev[j];
  return out;
}

KernelRidge KernelRidge::fit(const std::vector<FeatureRow>& x_scaled, const std::vector<double>& y,
                             double alpha, double gamma) {
  KernelRidge m;
  m.alpha = alpha;
  m.gamma = gamma;
  m.x = x_scaled;
  const auto n = static_cast<Eigen::Index>(y.size());
  m.y_mean = std::accumulate(y.begin(), y.end(), 0.0) / static_cast<double>(y.size());
  Eigen::MatrixXd k(n, n);
  Eigen::VectorXd rhs(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    rhs(i) = y[static_cast<std::size_t>(i)] - m.y_mean;
    for (Eigen::Index j = 0; j <= i; ++j) {
      const double v = std::exp(-gamma * squared_distance(x_scaled[static_cast<std::size_t>(i)],
                                                          x_scaled[static_cast<std::size_t>(j)]));
      k(i, j) = v;
      k(j, i) = v;
    }
    k(i, i) += alpha;
  }
  const Eigen::VectorXd c = k.ldlt().solve(rhs);
  m.dual.assign(c.data(), c.data() + c.size());
  return m;
}

double KernelRidge::predict(const FeatureRow& x_scaled) const {
  double y = y_mean;
  for (std::size_t i = 0; i < x.size(); ++i) {
    y += dual[i] * std::exp(-gamma * squared_distance(x_scaled, x[i]));
  }
  return y;
}

LinearModel LinearModel::fit(const std::vector<FeatureRow>& x_scaled,
                             const std::vector<double>& y) {
  LinearModel m;
  const auto n = static_cast<Eigen::Index>(y.size());
  const auto d = static_cast<Eigen::Index>(x_scaled.empty() ? 0 : x_scaled[0].size());
  Eigen::MatrixXd a(n, d + 1);
  Eigen::VectorXd b(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    a(i, 0) = 1.0;
    for (Eigen::Index j = 0; j < d; ++j)
      a(i, j + 1) = x_scaled[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)];
    b(i) = y[static_cast<std::size_t>(i)];
  }
  Eigen::MatrixXd normal = a.transpose() * a;
  normal.diagonal().array() += 1e-8;
  const Eigen::VectorXd w = normal.ldlt().solve(a.transpose() * b);
  m.intercept = w(0);
  m.weights.assign(w.data() + 1, w.data() + w.size());
  return m;
}

double LinearModel::predict(const FeatureRow& x_scaled) const {
  double y = intercept;
  for (std::size_t j = 0; j < weights.size(); ++j) y += weights[j] * x_scaled[j];
  return y;
}

RandomSearchResult random_search_cv(const std::vector<FeatureRow>& x_raw,
                                    const std::vector<double>& y,
                                    const RandomSearchOptions& options,
                                    ProgressReporter* progress) {
  std::mt19937 rng(options.seed);
  std::vector<std::size_t> order(y.size());
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), rng);
  const std::size_t folds = static_cast<std::size_t>(std::max(2, options.folds));

  // Scaled folds are the same for every (α, γ): prepare them once.
  struct Fold {
    std::vector<FeatureRow> train_x, test_x;
    std::vector<double> train_y, test_y;
  };
  std::vector<Fold> prepared(folds);
  for (std::size_t f = 0; f < folds; ++f) {
    std::vector<FeatureRow> train_raw;
    for (std::size_t p = 0; p < order.size(); ++p) {
      const std::size_t i = order[p];
      if (p % folds == f) {
        prepared[f].test_y.push_back(y[i]);
      } else {
        train_raw.push_back(x_raw[i]);
        prepared[f].train_y.push_back(y[i]);
      }
    }
    const FeatureScaler scaler = FeatureScaler::fit(train_raw);
    for (const FeatureRow& r : train_raw) prepared[f].train_x.push_back(scaler.apply(r));
    for (std::size_t p = 0; p < order.size(); ++p) {
      if (p % folds == f) prepared[f].test_x.push_back(scaler.apply(x_raw[order[p]]));
    }
  }

  std::uniform_real_distribution<double> unit(0.0, 1.0);
  const auto log_uniform = [&](double lo, double hi) {
    return std::exp(std::log(lo) + unit(rng) * (std::log(hi) - std::log(lo)));
  };
  RandomSearchResult best;
  best.cv_mape_percent = std::numeric_limits<double>::infinity();
  for (int it = 0; it < options.iterations; ++it) {
    if (it > 0 && progress != nullptr && progress->stop_requested()) break;
    const double alpha = log_uniform(options.alpha_min, options.alpha_max);
    const double gamma = log_uniform(options.gamma_min, options.gamma_max);
    if (progress != nullptr) {
      progress->item(static_cast<std::size_t>(it) + 1,
                     fmt::format("α {:.3g}, γ {:.3g}", alpha, gamma));
    }
    double error_sum = 0.0;
    std::size_t count = 0;
    for (const Fold& fold : prepared) {
      const KernelRidge model = KernelRidge::fit(fold.train_x, fold.train_y, alpha, gamma);
      for (std::size_t i = 0; i < fold.test_x.size(); ++i) {
        error_sum +=
            std::abs(model.predict(fold.test_x[i]) - fold.test_y[i]) / std::abs(fold.test_y[i]);
        ++count;
      }
    }
    const double mape = 100.0 * error_sum / static_cast<double>(std::max<std::size_t>(count, 1));
    if (mape < best.cv_mape_percent) best = RandomSearchResult{alpha, gamma, mape, 0};
    best.iterations = it + 1;
  }
  return best;
}

}  // namespace jouleprof
