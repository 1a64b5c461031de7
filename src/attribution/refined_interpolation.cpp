#include "attribution/refined_interpolation.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "attribution/nnls_regression.hpp"

namespace jouleprof::attribution {

namespace {

constexpr std::uint32_t kIdleColumn = 0;  // column 0: the interval's length (idle power)

// The read-delay search looks at this many whole update intervals (16 s of a 1 ms counter: on
// the steady step of the evaluation 4096 placed the delay at 4.7 µs instead of ~10 µs) and
// narrows the range to 0.618^steps of itself (2 % of 100 µs for a 1 ms counter).
constexpr std::size_t kDelaySearchWindows = 16384;
// The fit's SVDs cost O(columns³): a timeline whose span names are not mapped to classes (every
// step its own name) would spend minutes there, and per-name powers of thousands of names are not
// identifiable from one counter anyway.
constexpr std::uint32_t kMaxColumns = 512;
constexpr int kDelaySearchSteps = 8;

bool identified(double power_w, double standard_error_w, double max_relative_se) {
  return power_w > 0.0 && std::isfinite(standard_error_w) &&
         standard_error_w <= max_relative_se * power_w;
}

// The inner interval bounds moved `delay_ns` earlier (the attribution bounds stay).
std::vector<TimeNs> moved_earlier(const std::vector<TimeNs>& edges, TimeNs delay_ns) {
  std::vector<TimeNs> out = edges;
  for (std::size_t j = 1; j + 1 < out.size(); ++j)
    out[j] = std::max(out[j - 1], edges[j] - delay_ns);
  return out;
}

std::vector<double> interval_lengths_s(const std::vector<TimeNs>& edges) {
  std::vector<double> out(edges.size() - 1);
  for (std::size_t j = 0; j + 1 < edges.size(); ++j) out[j] = ns_to_s(edges[j + 1] - edges[j]);
  return out;
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

// Rows [first_row, end_row): E_j against (T_j, B_{1,j}, …), accumulated without storing A.
template <typename ColumnOf>
NormalEquations normal_equations(const std::vector<Segment>& segments, const SweepResult& sweep,
                                 const std::vector<double>& window_s,
                                 const std::vector<double>& window_energy_j, std::size_t first_row,
                                 std::size_t end_row, std::uint32_t columns,
                                 const ColumnOf& column_of) {
  NormalEquations n;
  n.gram = Eigen::MatrixXd::Zero(columns, columns);
  n.aty = Eigen::VectorXd::Zero(columns);
  // AᵀA is symmetric: each row adds busy·busy_b to column b of the upper triangle, for the
  // touched columns b (a contiguous, vectorised update; untouched rows add +0, which changes no
  // sum), with busy_0 holding the interval length; the lower triangle is copied at the end.
  Eigen::VectorXd busy = Eigen::VectorXd::Zero(columns);
  std::vector<bool> is_touched(columns, false);
  std::vector<std::uint32_t> touched;
  std::size_t row = first_row;  // the next row to add
  const auto add_rows_before = [&](std::size_t j) {
    for (; row < std::min(j, end_row); ++row) {
      const double t = window_s[row];
      const double e = window_energy_j[row];
      n.gram(0, 0) += t * t;
      n.aty(0) += t * e;
      n.yty += e * e;
      busy(kIdleColumn) = t;
      for (std::uint32_t b : touched) {
        n.gram.col(b).head(b + 1) += busy.head(b + 1) * busy(b);
        n.aty(b) += busy(b) * e;
      }
      busy(kIdleColumn) = 0.0;
      for (std::uint32_t b : touched) {
        busy(b) = 0.0;
        is_touched[b] = false;
      }
      touched.clear();
      ++n.rows;
    }
  };
  for_each_piece(segments, sweep, window_s.size(), column_of,
                 [&](std::size_t j, std::uint32_t c, double shared_s) {
                   if (row < j && row < end_row)
                     add_rows_before(j);  // a new interval: rarely, so the call stays out of line
                   if (j < first_row || j >= end_row || c == kIdleColumn) return;
                   if (!is_touched[c]) {
                     is_touched[c] = true;
                     touched.push_back(c);
                   }
                   busy(c) += shared_s;
                 });
  add_rows_before(end_row);
  for (Eigen::Index b = 1; b < n.gram.cols(); ++b) {
    for (Eigen::Index a = 0; a < b; ++a) n.gram(b, a) = n.gram(a, b);
  }
  return n;
}

// Residual sum of squares of the unconstrained least-squares fit (the delay search only compares
// shifts, so the cheaper unconstrained fit is enough).
double residual_sum_of_squares(const NormalEquations& n) {
  const Eigen::VectorXd scale = n.gram.diagonal().cwiseMax(0.0).cwiseSqrt().unaryExpr(
      [](double s) { return s > 0.0 ? 1.0 / s : 1.0; });
  const Eigen::MatrixXd scaled = scale.asDiagonal() * n.gram * scale.asDiagonal();
  const Eigen::VectorXd b = n.aty.cwiseProduct(scale);
  const Eigen::VectorXd x = scaled.ldlt().solve(b);
  return n.yty - b.dot(x);
}

}  // namespace

Refinement refine_interpolation(const std::vector<Segment>& segments, const EnergyCurve& curve,
                                const std::vector<TimeNs>& edges, const SweepResult& as_read,
                                std::size_t class_count, const RefinementLimits& limits) {
  Refinement out;
  const std::vector<TimeNs>& knots = curve.knots_ns();
  const std::size_t windows = edges.size() - 1;

  // Columns: 0 = interval length, then each class with busy time; segments without a class
  // (kNoClass) are idle time and keep column 0.
  std::vector<std::uint32_t> column_of_class(class_count, kIdleColumn);
  std::uint32_t columns = 1;
  for (std::size_t i = 0; i < segments.size() && columns <= class_count;
       ++i) {  // stops once all are seen
    const Segment& s = segments[i];
    if (s.klass != kNoClass && column_of_class[s.klass] == kIdleColumn)
      column_of_class[s.klass] = columns++;
  }
  out.classes = columns - 1;
  const auto column_of = [&](const Segment& s) {
    return s.klass == kNoClass ? kIdleColumn : column_of_class[s.klass];
  };

  std::vector<double> window_energy_j(windows);
  {
    EnergyCurve::Cursor cursor(curve);
    double g = cursor.at(edges[0]);
    for (std::size_t j = 0; j < windows; ++j) {
      const double next = cursor.at(edges[j + 1]);
      window_energy_j[j] = next - g;
      g = next;
    }
  }
  // Only whole update intervals enter the fit: the first and last may be cut by the attribution
  // bounds, and their energy then carries interpolation.
  const auto is_knot = [&](TimeNs t) { return std::binary_search(knots.begin(), knots.end(), t); };
  const std::size_t first_row = is_knot(edges[0]) ? 0 : 1;
  const std::size_t end_row = is_knot(edges[windows]) ? windows : windows - 1;
  out.windows = end_row > first_row ? end_row - first_row : 0;
  const std::size_t min_windows =
      limits.min_windows > 0 ? limits.min_windows : 3 * static_cast<std::size_t>(columns);
  if (out.classes == 0) {
    out.why_not = "no span with a class lies in the window";
    return out;
  }
  if (columns > kMaxColumns) {
    out.why_not = fmt::format(
        "{} classes, more than the fit takes ({}): map span names to classes "
        "(AttributionOptions::class_of, --classes)",
        out.classes, kMaxColumns - 1);
    return out;
  }
  if (out.windows < min_windows) {
    out.why_not = fmt::format("{} whole update intervals for {} unknowns (need {})", out.windows,
                              columns, min_windows);
    return out;
  }

  const auto separates = [&](const NnlsFit& fit) {
    if (fit.rank < static_cast<int>(columns) || fit.condition_number > limits.max_condition)
      return false;
    for (std::uint32_t c = 1; c < columns; ++c) {
      if (identified(fit.coefficients(c), fit.standard_error(c), limits.max_relative_se))
        return true;
    }
    return false;
  };
  // The fit with the bounds as read: when it separates no class, no shift is searched for (the
  // search costs more than the rest of the refinement).
  const SweepResult* sweep = &as_read;
  std::vector<double> window_s = interval_lengths_s(edges);
  NnlsFit fit = [&] {
    const NormalEquations equations = normal_equations(segments, *sweep, window_s, window_energy_j,
                                                       first_row, end_row, columns, column_of);
    return fit_nnls_normal(equations.gram, equations.aty, equations.yty, equations.rows);
  }();
  const bool separates_as_read = separates(fit);

  // The counter's timestamps are read times: a poller sees each update some time after it
  // happened, so every interval bound is late by the read delay, and the energy of the ops at
  // each bound lands in the neighbouring interval. For ops as short as the delay that biases the
  // fit. The mean delay is estimated from the readings and spans alone: the shift of the inner
  // bounds (golden section over [0, period/10], or none) that leaves the smallest residual on the
  // first whole intervals. Each interval keeps its measured energy whatever the shift.
  if (separates_as_read) {
    const std::size_t search_end = std::min(end_row, first_row + kDelaySearchWindows);
    const TimeNs search_until = edges[search_end];
    std::vector<Segment> early;
    for (const Segment& s : segments) {
      if (s.begin_ns < search_until) early.push_back(s);
    }
    const std::vector<TimeNs> search_edges(
        edges.begin(), edges.begin() + static_cast<std::ptrdiff_t>(search_end + 1));
    // The last searched interval also collects the segments' time past its end: left out.
    const auto rss_at = [&](double delay_ns) {
      const std::vector<TimeNs> moved = moved_earlier(search_edges, std::llround(delay_ns));
      const SweepResult moved_sweep = sweep_segments(early, nullptr, moved);
      return residual_sum_of_squares(normal_equations(early, moved_sweep, interval_lengths_s(moved),
                                                      window_energy_j, first_row, search_end - 1,
                                                      columns, column_of));
    };
    const double golden = (std::sqrt(5.0) - 1.0) / 2.0;
    const double range = static_cast<double>(curve.median_knot_spacing_ns()) / 10.0;
    double lo = 0.0;
    double hi = range;
    double x1 = hi - golden * (hi - lo);
    double x2 = lo + golden * (hi - lo);
    double f1 = rss_at(x1);
    double f2 = rss_at(x2);
    for (int step = 0; step < kDelaySearchSteps; ++step) {
      if (f1 <= f2) {
        hi = x2;
        x2 = x1;
        f2 = f1;
        x1 = hi - golden * (hi - lo);
        f1 = rss_at(x1);
      } else {
        lo = x1;
        x1 = x2;
        f1 = f2;
        x2 = lo + golden * (hi - lo);
        f2 = rss_at(x2);
      }
    }
    // Golden section never looks at the range's ends: a counter read on time keeps its bounds
    // unless a shift fits better.
    const double best = 0.5 * (lo + hi);
    if (rss_at(best) < rss_at(0.0)) out.read_delay_ns = std::llround(best);
  }

  SweepResult moved_sweep;
  if (out.read_delay_ns > 0) {
    const std::vector<TimeNs> moved = moved_earlier(edges, out.read_delay_ns);
    moved_sweep = sweep_segments(segments, nullptr, moved);
    sweep = &moved_sweep;
    window_s = interval_lengths_s(moved);
    const NormalEquations equations = normal_equations(segments, *sweep, window_s, window_energy_j,
                                                       first_row, end_row, columns, column_of);
    fit = fit_nnls_normal(equations.gram, equations.aty, equations.yty, equations.rows);
  }
  out.busy_s = sweep->busy_s;
  out.condition_number = std::isfinite(fit.condition_number) ? fit.condition_number : 1e300;
  if (fit.rank < static_cast<int>(columns) || fit.condition_number > limits.max_condition) {
    out.why_not = "the update intervals do not separate the classes: " +
                  describe_conditioning(fit, columns, limits.max_condition);
    return out;
  }
  // NaN marks a column that weighs the interval's mean power.
  constexpr double kIntervalMean = std::numeric_limits<double>::quiet_NaN();
  std::vector<double> column_weight_w(columns, kIntervalMean);
  out.idle_power_w = fit.coefficients(0);
  out.idle_refined = identified(fit.coefficients(0), fit.standard_error(0), limits.max_relative_se);
  if (out.idle_refined) column_weight_w[kIdleColumn] = fit.coefficients(0);
  for (std::uint32_t c = 1; c < columns; ++c) {
    if (identified(fit.coefficients(c), fit.standard_error(c), limits.max_relative_se)) {
      column_weight_w[c] = fit.coefficients(0) + fit.coefficients(c);
      ++out.refined_classes;
    }
  }
  if (out.refined_classes == 0) {
    out.why_not = fmt::format("no class power has a standard error within ±{:.0f} %",
                              100.0 * limits.max_relative_se);
    return out;
  }

  // Each interval's energy split ∝ shared busy time × weight (idle stretches: the idle weight).
  std::vector<double> mean_w(windows, 0.0);
  const auto weight = [&](std::size_t j, std::uint32_t c) {
    return std::isnan(column_weight_w[c]) ? mean_w[j] : column_weight_w[c];
  };
  std::vector<double> load(windows, 0.0);
  for (std::size_t j = 0; j < windows; ++j) {
    mean_w[j] = window_s[j] > 0.0 ? window_energy_j[j] / window_s[j] : 0.0;
    load[j] = weight(j, kIdleColumn) * (sweep->edge_idle_s[j + 1] - sweep->edge_idle_s[j]);
  }
  for_each_piece(
      segments, *sweep, windows, column_of,
      [&](std::size_t j, std::uint32_t c, double shared_s) { load[j] += weight(j, c) * shared_s; });
  std::vector<double> joules_per_load(windows, 0.0);
  for (std::size_t j = 0; j < windows; ++j)
    joules_per_load[j] = load[j] > 0.0 ? window_energy_j[j] / load[j] : 0.0;
  out.segment_energy_j.assign(segments.size(), 0.0);
  for (std::size_t i = 0; i < segments.size(); ++i) {
    const std::uint32_t column = column_of(segments[i]);
    double energy = 0.0;
    const std::size_t last_window = std::min<std::size_t>(sweep->end_window[i], windows - 1);
    for (std::size_t j = sweep->begin_window[i]; j <= last_window; ++j) {
      energy += joules_per_load[j] * weight(j, column) *
                shared_time_in_window(*sweep, segments[i], i, static_cast<std::uint32_t>(j));
    }
    out.segment_energy_j[i] = energy;
  }
  out.segment_shared_s = sweep->shared_time_s;
  out.applied = true;
  return out;
}

}  // namespace jouleprof::attribution
