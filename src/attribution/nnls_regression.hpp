// Non-negative least squares (Lawson–Hanson active set) with the diagnostics that decide whether
// the fitted per-column figures mean anything: rank and condition number of the column-scaled
// design, and per-column standard errors from the residual variance.
#pragma once

#include <Eigen/Dense>
#include <string>
#include <vector>

namespace jouleprof::attribution {

struct NnlsFit {
  Eigen::VectorXd coefficients;  // ≥ 0, in the design's units
  Eigen::VectorXd
      standard_error;             // per column; +inf where a column is at its bound or unidentified
  int rank = 0;                   // numerical rank of the column-scaled design
  double condition_number = 0.0;  // σ_max / σ_min of the column-scaled design (+inf if singular)
  double residual_rms = 0.0;      // sqrt(RSS / rows)
  int iterations = 0;
};

// The fit of a design A that is never stored, from its normal equations: gram = AᵀA,
// design_t_target = Aᵀy, target_squared = yᵀy, over `rows` rows (normal_equations.hpp builds them).
// Memory is O(columns²) however many rows (a 1 ms counter gives 3.6 million windows an hour). The
// reduced problem is built from the eigendecomposition AᵀA = VΛVᵀ: R = Λ^½Vᵀ has A's singular
// values and RᵀR = AᵀA (precision: the Gram matrix squares the condition number, harmless below
// the 1e4 limits used). Columns that are entirely zero get coefficient 0 and an infinite standard
// error.
NnlsFit fit_nnls_normal(const Eigen::MatrixXd& gram, const Eigen::VectorXd& design_t_target,
                        double target_squared, std::size_t rows);

// "rank r of n, condition number c (limit l)" for a message saying why a fit is not trusted; a
// singular design says so in words, since an infinite condition number is no figure to print.
std::string describe_conditioning(const NnlsFit& fit, std::size_t columns, double max_condition);

}  // namespace jouleprof::attribution
