// Non-negative least squares (Lawson–Hanson active set) with the diagnostics that decide whether
// the fitted per-column figures mean anything: rank and condition number of the column-scaled
// design, and per-column standard errors from the residual variance.
#pragma once

#include <vector>

#include <Eigen/Dense>

namespace jouleprof::attribution {

struct NnlsFit {
  Eigen::VectorXd coefficients;    // ≥ 0, in the design's units
  Eigen::VectorXd standard_error;  // per column; +inf where a column is at its bound or unidentified
  int rank = 0;                    // numerical rank of the column-scaled design
  double condition_number = 0.0;   // σ_max / σ_min of the column-scaled design (+inf if singular)
  double residual_rms = 0.0;       // sqrt(RSS / rows)
  int iterations = 0;
};

// Columns of `design` that are entirely zero get coefficient 0 and an infinite standard error.
NnlsFit fit_nnls(const Eigen::MatrixXd& design, const Eigen::VectorXd& target);

}  // namespace jouleprof::attribution
