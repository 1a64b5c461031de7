// The normal equations of the windowed regressions (AᵀA, Aᵀy, yᵀy), accumulated row by row from
// the segments' pieces without storing the design A: one row per counter window — its length
// (column 0, whose coefficient is the idle power) and each class's shared busy time in it — against
// the window's measured energy. Memory is O(columns²) however many windows; the regression on
// whole counter windows and the refinement below the update period both build theirs here.
#pragma once

#include <Eigen/Dense>
#include <algorithm>
#include <cstdint>
#include <vector>

#include "attribution/energy_curve.hpp"
#include "attribution/interval_sweep.hpp"

namespace jouleprof::attribution {

inline constexpr std::uint32_t kIdleColumn = 0;  // column 0: the window's length (idle power)

// Each window's length, the rows' column 0.
inline std::vector<double> interval_lengths_s(const std::vector<TimeNs>& edges) {
  std::vector<double> out(edges.size() - 1);
  for (std::size_t j = 0; j + 1 < edges.size(); ++j) out[j] = ns_to_s(edges[j + 1] - edges[j]);
  return out;
}

// Each window's energy off the curve, the rows' target.
inline std::vector<double> interval_energies_j(const EnergyCurve& curve,
                                               const std::vector<TimeNs>& edges) {
  std::vector<double> energy_j(edges.size() - 1);
  EnergyCurve::Cursor cursor(curve);
  double g = cursor.at(edges[0]);
  for (std::size_t j = 0; j + 1 < edges.size(); ++j) {
    const double next = cursor.at(edges[j + 1]);
    energy_j[j] = next - g;
    g = next;
  }
  return energy_j;
}

// Visits the segments' shared busy time per update interval as pieces (interval, column,
// seconds), interval by interval and, within one, in segment order. Segments in time order on
// one track give their pieces in that order already; others are grouped by a counting sort.
template <typename ColumnOf, typename Visit>
void for_each_piece(const std::vector<Segment>& segments, const SweepResult& sweep,
                    std::size_t windows, const ColumnOf& column_of, const Visit& visit) {
  const auto last_window = [&](std::size_t i) {
    return std::min<std::size_t>(sweep.end_window[i], windows - 1);
  };
  const auto shared_in = [&](std::size_t i, std::size_t j) {
    return shared_time_in_window(sweep, segments[i], i, static_cast<std::uint32_t>(j));
  };
  bool grouped = true;
  for (std::size_t i = 1; i < segments.size() && grouped; ++i)
    grouped = sweep.begin_window[i] >= last_window(i - 1);
  if (grouped) {
    for (std::size_t i = 0; i < segments.size(); ++i) {
      const std::uint32_t column = column_of(segments[i]);
      for (std::size_t j = sweep.begin_window[i]; j <= last_window(i); ++j)
        visit(j, column, shared_in(i, j));
    }
    return;
  }
  std::vector<std::uint32_t> piece_begin(windows + 1, 0);
  for (std::size_t i = 0; i < segments.size(); ++i) {
    for (std::size_t j = sweep.begin_window[i]; j <= last_window(i); ++j) ++piece_begin[j + 1];
  }
  for (std::size_t j = 0; j < windows; ++j) piece_begin[j + 1] += piece_begin[j];
  std::vector<std::uint32_t> piece_column(piece_begin[windows]);
  std::vector<double> piece_shared_s(piece_begin[windows]);
  std::vector<std::uint32_t> fill(piece_begin.begin(), piece_begin.end() - 1);
  for (std::size_t i = 0; i < segments.size(); ++i) {
    const std::uint32_t column = column_of(segments[i]);
    for (std::size_t j = sweep.begin_window[i]; j <= last_window(i); ++j) {
      const std::uint32_t k = fill[j]++;
      piece_column[k] = column;
      piece_shared_s[k] = shared_in(i, j);
    }
  }
  for (std::size_t j = 0; j < windows; ++j) {
    for (std::uint32_t k = piece_begin[j]; k < piece_begin[j + 1]; ++k)
      visit(j, piece_column[k], piece_shared_s[k]);
  }
}

struct NormalEquations {
  Eigen::MatrixXd gram;  // AᵀA
  Eigen::VectorXd aty;   // Aᵀy
  double yty = 0.0;
  std::size_t rows = 0;
};

// Accumulates the rows E_j against (T_j, B_{1,j}, …) without storing A.
class NormalEquationsBuilder {
 public:
  explicit NormalEquationsBuilder(std::uint32_t columns)
      : busy_(Eigen::VectorXd::Zero(columns)), is_touched_(columns, false) {
    n_.gram = Eigen::MatrixXd::Zero(columns, columns);
    n_.aty = Eigen::VectorXd::Zero(columns);
  }

  // Busy time of a class column (never kIdleColumn) in the current row.
  void add(std::uint32_t column, double shared_s) {
    if (!is_touched_[column]) {
      is_touched_[column] = true;
      touched_.push_back(column);
    }
    busy_(column) += shared_s;
  }

  // AᵀA is symmetric: each row adds busy·busy_b to column b of the upper triangle, for the
  // touched columns b (a contiguous, vectorised update; untouched rows add +0, which changes no
  // sum), with busy_0 holding the interval length; finish() copies the lower triangle.
  void end_row(double length_s, double energy_j) {
    n_.gram(0, 0) += length_s * length_s;
    n_.aty(0) += length_s * energy_j;
    n_.yty += energy_j * energy_j;
    busy_(kIdleColumn) = length_s;
    for (std::uint32_t b : touched_) {
      n_.gram.col(b).head(b + 1) += busy_.head(b + 1) * busy_(b);
      n_.aty(b) += busy_(b) * energy_j;
    }
    busy_(kIdleColumn) = 0.0;
    for (std::uint32_t b : touched_) {
      busy_(b) = 0.0;
      is_touched_[b] = false;
    }
    touched_.clear();
    ++n_.rows;
  }

  NormalEquations finish() {
    for (Eigen::Index b = 1; b < n_.gram.cols(); ++b) {
      for (Eigen::Index a = 0; a < b; ++a) n_.gram(b, a) = n_.gram(a, b);
    }
    return std::move(n_);
  }

 private:
  NormalEquations n_;
  Eigen::VectorXd busy_;
  std::vector<bool> is_touched_;
  std::vector<std::uint32_t> touched_;
};

// Rows [first_row, end_row) from the pieces of a sweep.
template <typename ColumnOf>
NormalEquations normal_equations(const std::vector<Segment>& segments, const SweepResult& sweep,
                                 const std::vector<double>& window_s,
                                 const std::vector<double>& window_energy_j, std::size_t first_row,
                                 std::size_t end_row, std::uint32_t columns,
                                 const ColumnOf& column_of) {
  NormalEquationsBuilder builder(columns);
  std::size_t row = first_row;  // the next row to add
  const auto add_rows_before = [&](std::size_t j) {
    for (; row < std::min(j, end_row); ++row) builder.end_row(window_s[row], window_energy_j[row]);
  };
  for_each_piece(segments, sweep, window_s.size(), column_of,
                 [&](std::size_t j, std::uint32_t c, double shared_s) {
                   if (row < j && row < end_row)
                     add_rows_before(j);  // a new interval: rarely, so the call stays out of line
                   if (j < first_row || j >= end_row || c == kIdleColumn) return;
                   builder.add(c, shared_s);
                 });
  add_rows_before(end_row);
  return builder.finish();
}

}  // namespace jouleprof::attribution
