#include "attribution/nnls_regression.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace jouleprof::attribution {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Least squares on the columns in `passive` only (others fixed at 0).
Eigen::VectorXd solve_on(const Eigen::MatrixXd& a, const Eigen::VectorXd& y,
                         const std::vector<bool>& passive) {
  std::vector<Eigen::Index> cols;
  for (Eigen::Index j = 0; j < a.cols(); ++j) {
    if (passive[static_cast<std::size_t>(j)]) cols.push_back(j);
  }
  Eigen::VectorXd full = Eigen::VectorXd::Zero(a.cols());
  if (cols.empty()) return full;
  Eigen::MatrixXd sub(a.rows(), static_cast<Eigen::Index>(cols.size()));
  for (std::size_t k = 0; k < cols.size(); ++k)
    sub.col(static_cast<Eigen::Index>(k)) = a.col(cols[k]);
  const Eigen::VectorXd s = sub.completeOrthogonalDecomposition().solve(y);
  for (std::size_t k = 0; k < cols.size(); ++k) full(cols[k]) = s(static_cast<Eigen::Index>(k));
  return full;
}

// NNLS on the reduced problem ‖a·x − y‖² + extra_rss, for a design of `rows` rows whose columns
// were divided by `scale`; `usable` marks the columns that are not entirely zero.
NnlsFit fit_reduced(const Eigen::MatrixXd& a, const Eigen::VectorXd& y, double extra_rss,
                    const Eigen::VectorXd& scale, const std::vector<bool>& usable,
                    std::size_t rows) {
  const Eigen::Index p = a.cols();
  NnlsFit fit;
  fit.coefficients = Eigen::VectorXd::Zero(p);
  fit.standard_error = Eigen::VectorXd::Constant(p, kInf);
  Eigen::JacobiSVD<Eigen::MatrixXd> svd(a);
  const Eigen::VectorXd& sigma = svd.singularValues();
  const double sigma_max = sigma.size() > 0 ? sigma(0) : 0.0;
  const double tol_rank = sigma_max *
                          static_cast<double>(std::max(static_cast<Eigen::Index>(rows), p)) *
                          std::numeric_limits<double>::epsilon();
  for (Eigen::Index k = 0; k < sigma.size(); ++k) fit.rank += sigma(k) > tol_rank ? 1 : 0;
  const double sigma_min = sigma.size() > 0 ? sigma(sigma.size() - 1) : 0.0;
  fit.condition_number = sigma_min > 0.0 ? sigma_max / sigma_min : kInf;

  // Lawson–Hanson active-set iterations.
  const double tol = 1e-12 * std::max(1.0, y.norm());
  std::vector<bool> passive(static_cast<std::size_t>(p), false);
  Eigen::VectorXd x = Eigen::VectorXd::Zero(p);
  const int max_iterations = static_cast<int>(3 * p + 30);
  for (fit.iterations = 0; fit.iterations < max_iterations; ++fit.iterations) {
    const Eigen::VectorXd gradient = a.transpose() * (y - a * x);
    Eigen::Index best = -1;
    double best_value = tol;
    for (Eigen::Index j = 0; j < p; ++j) {
      const auto uj = static_cast<std::size_t>(j);
      if (!passive[uj] && usable[uj] && gradient(j) > best_value) {
        best = j;
        best_value = gradient(j);
      }
    }
    if (best < 0) break;
    passive[static_cast<std::size_t>(best)] = true;
    for (int inner = 0; inner < max_iterations; ++inner) {
      const Eigen::VectorXd s = solve_on(a, y, passive);
      bool feasible = true;
      double alpha = 1.0;
      for (Eigen::Index j = 0; j < p; ++j) {
        if (passive[static_cast<std::size_t>(j)] && s(j) <= 0.0) {
          feasible = false;
          const double denom = x(j) - s(j);
          if (denom > 0.0) alpha = std::min(alpha, x(j) / denom);
        }
      }
      if (feasible) {
        x = s;
        break;
      }
      x += alpha * (s - x);
      for (Eigen::Index j = 0; j < p; ++j) {
        if (passive[static_cast<std::size_t>(j)] && x(j) <= 1e-15) {
          passive[static_cast<std::size_t>(j)] = false;
          x(j) = 0.0;
        }
      }
    }
  }

  const double rss = (y - a * x).squaredNorm() + extra_rss;
  fit.residual_rms = std::sqrt(rss / static_cast<double>(rows));

  // Standard errors on the passive (positive) columns: σ²·(A_Pᵀ A_P)⁻¹ through the SVD, so a
  // near-singular passive design yields huge errors rather than a failed inverse.
  std::vector<Eigen::Index> cols;
  for (Eigen::Index j = 0; j < p; ++j) {
    if (passive[static_cast<std::size_t>(j)]) cols.push_back(j);
  }
  const auto dof = static_cast<double>(rows) - static_cast<double>(cols.size());
  if (!cols.empty() && dof > 0.0) {
    Eigen::MatrixXd sub(a.rows(), static_cast<Eigen::Index>(cols.size()));
    for (std::size_t k = 0; k < cols.size(); ++k)
      sub.col(static_cast<Eigen::Index>(k)) = a.col(cols[k]);
    Eigen::JacobiSVD<Eigen::MatrixXd> sub_svd(sub, Eigen::ComputeThinV);
    const Eigen::VectorXd& sv = sub_svd.singularValues();
    const double variance = rss / dof;
    for (std::size_t k = 0; k < cols.size(); ++k) {
      double var_k = 0.0;
      for (Eigen::Index m = 0; m < sv.size(); ++m) {
        const double v = sub_svd.matrixV()(static_cast<Eigen::Index>(k), m);
        var_k += sv(m) > 0.0 ? v * v / (sv(m) * sv(m)) : kInf;
      }
      fit.standard_error(cols[k]) = std::sqrt(variance * var_k) / scale(cols[k]);
    }
  }
  fit.coefficients = x.cwiseQuotient(scale);
  return fit;
}

}  // namespace

NnlsFit fit_nnls_normal(const Eigen::MatrixXd& gram, const Eigen::VectorXd& design_t_target,
                        double target_squared, std::size_t rows) {
  const Eigen::Index p = gram.cols();
  NnlsFit fit;
  fit.coefficients = Eigen::VectorXd::Zero(p);
  fit.standard_error = Eigen::VectorXd::Constant(p, kInf);
  if (rows == 0 || p == 0) return fit;
  Eigen::VectorXd scale = gram.diagonal().cwiseMax(0.0).cwiseSqrt();
  std::vector<bool> usable(static_cast<std::size_t>(p));
  for (Eigen::Index j = 0; j < p; ++j) {
    usable[static_cast<std::size_t>(j)] = scale(j) > 0.0;
    if (scale(j) <= 0.0) scale(j) = 1.0;
  }
  const Eigen::VectorXd inverse_scale = scale.cwiseInverse();
  const Eigen::MatrixXd scaled_gram =
      inverse_scale.asDiagonal() * gram * inverse_scale.asDiagonal();
  const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eigen(scaled_gram);
  const Eigen::VectorXd lambda = eigen.eigenvalues().cwiseMax(0.0);
  const Eigen::VectorXd projected =
      eigen.eigenvectors().transpose() * design_t_target.cwiseProduct(inverse_scale);
  // Directions whose eigenvalue is at rounding level carry no information about y (in exact
  // arithmetic Aᵀy has no component there); dividing by them would only amplify rounding.
  const double floor =
      lambda.maxCoeff() * static_cast<double>(p) * std::numeric_limits<double>::epsilon();
  Eigen::VectorXd y = Eigen::VectorXd::Zero(p);
  for (Eigen::Index k = 0; k < p; ++k) {
    if (lambda(k) > floor) y(k) = projected(k) / std::sqrt(lambda(k));
  }
  const Eigen::MatrixXd a = lambda.cwiseSqrt().asDiagonal() * eigen.eigenvectors().transpose();
  const double extra_rss = std::max(0.0, target_squared - y.squaredNorm());
  return fit_reduced(a, y, extra_rss, scale, usable, rows);
}

std::string describe_conditioning(const NnlsFit& fit, std::size_t columns, double max_condition) {
  if (!std::isfinite(fit.condition_number)) {
    return fmt::format("rank {} of {}, singular (some classes never vary apart)", fit.rank,
                       columns);
  }
  return fmt::format("rank {} of {}, condition number {:.3g} (limit {:.3g})", fit.rank, columns,
                     fit.condition_number, max_condition);
}

}  // namespace jouleprof::attribution
