#include "attribution/refined_interpolation.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

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
  return power_w > 0.0 && std::isfinite(standard_error_w) && standard_error_w <= max_relative_se * power_w;
}

// The inner interval bounds moved `delay_ns` earlier (the attribution bounds stay).
std::vector<TimeNs> moved_earlier(const std::vector<TimeNs>& edges, TimeNs delay_ns) {
  std::vector<TimeNs> out = edges;
  for (std::size_t j = 1; j + 1 < out.size(); ++j) out[j] = std::max(out[j - 1], edges[j] - delay_ns);
  return out;
}

// The segments' shared busy time per update interval, grouped by interval (a counting sort).
struct WindowPieces {
  SweepResult sweep;
  std::vector<std::uint32_t> piece_begin;  // per interval, into the piece arrays
  std::vector<std::uint32_t> piece_column;
  std::vector<double> piece_shared_s;
  std::vector<double> window_s;

  std::size_t last_window(std::size_t segment) const {
    return std::min<std::size_t>(sweep.end_window[segment], window_s.size() - 1);
  }
};

template <typename ColumnOf>
WindowPieces cut_into_windows(const std::vector<Segment>& segments, const std::vector<TimeNs>& edges,
                              const ColumnOf& column_of) {
  WindowPieces p;
  const std::size_t windows = edges.size() - 1;
  p.sweep = sweep_segments(segments, nullptr, edges);
  p.window_s.resize(windows);
  for (std::size_t j = 0; j < windows; ++j) p.window_s[j] = ns_to_s(edges[j + 1] - edges[j]);
  p.piece_begin.assign(windows + 1, 0);
  for (std::size_t i = 0; i < segments.size(); ++i) {
    for (std::size_t j = p.sweep.begin_window[i]; j <= p.last_window(i); ++j) ++p.piece_begin[j + 1];
  }
  for (std::size_t j = 0; j < windows; ++j) p.piece_begin[j + 1] += p.piece_begin[j];
  p.piece_column.resize(p.piece_begin[windows]);
  p.piece_shared_s.resize(p.piece_begin[windows]);
  std::vector<std::uint32_t> fill(p.piece_begin.begin(), p.piece_begin.end() - 1);
  for (std::size_t i = 0; i < segments.size(); ++i) {
    const std::uint32_t column = column_of(segments[i]);
    for (std::size_t j = p.sweep.begin_window[i]; j <= p.last_window(i); ++j) {
      const std::uint32_t k = fill[j]++;
      p.piece_column[k] = column;
      p.piece_shared_s[k] = shared_time_in_window(p.sweep, segments[i], i, static_cast<std::uint32_t>(j));
    }
  }
  return p;
}

struct NormalEquations {
  Eigen::MatrixXd gram;  // AᵀA
  Eigen::VectorXd aty;   // Aᵀy
  double yty = 0.0;
  std::size_t rows = 0;
};

// Rows [first_row, end_row): E_j against (T_j, B_{1,j}, …), accumulated without storing A.
NormalEquations normal_equations(const WindowPieces& p, const std::vector<double>& window_energy_j,
                                 std::size_t first_row, std::size_t end_row, std::uint32_t columns) {
  NormalEquations n;
  n.gram = Eigen::MatrixXd::Zero(columns, columns);
  n.aty = Eigen::VectorXd::Zero(columns);
  double* g = n.gram.data();
  std::vector<double> busy(columns, 0.0);
  std::vector<std::uint32_t> touched;
  for (std::size_t j = first_row; j < end_row; ++j) {
    for (std::uint32_t k = p.piece_begin[j]; k < p.piece_begin[j + 1]; ++k) {
      const std::uint32_t c = p.piece_column[k];
      if (c == kIdleColumn) continue;
      if (busy[c] == 0.0) touched.push_back(c);
      busy[c] += p.piece_shared_s[k];
    }
    const double t = p.window_s[j];
    const double e = window_energy_j[j];
    g[0] += t * t;
    n.aty(0) += t * e;
    n.yty += e * e;
    for (std::uint32_t a : touched) {
      const double ba = busy[a];
      g[a] += t * ba;
      g[static_cast<std::size_t>(a) * columns] += t * ba;
      n.aty(a) += ba * e;
      for (std::uint32_t b : touched) g[a + static_cast<std::size_t>(b) * columns] += ba * busy[b];
    }
    for (std::uint32_t a : touched) busy[a] = 0.0;
    touched.clear();
    ++n.rows;
  }
  return n;
}

// Residual sum of squares of the unconstrained least-squares fit (the delay search only compares
// shifts, so the cheaper unconstrained fit is enough).
double residual_sum_of_squares(const NormalEquations& n) {
  const Eigen::VectorXd scale = n.gram.diagonal().cwiseMax(0.0).cwiseSqrt().unaryExpr([](double s) {
    return s > 0.0 ? 1.0 / s : 1.0;
  });
  const Eigen::MatrixXd scaled = scale.asDiagonal() * n.gram * scale.asDiagonal();
  const Eigen::VectorXd b = n.aty.cwiseProduct(scale);
  const Eigen::VectorXd x = scaled.ldlt().solve(b);
  return n.yty - b.dot(x);
}

}  // namespace

Refinement refine_interpolation(const std::vector<Segment>& segments, const EnergyCurve& curve,
                                TimeNs begin_ns, TimeNs end_ns, std::size_t class_count,
                                const RefinementLimits& limits) {
  Refinement out;
  const std::vector<TimeNs>& knots = curve.knots_ns();
  std::vector<TimeNs> edges{begin_ns};
  for (auto k = std::upper_bound(knots.begin(), knots.end(), begin_ns); k != knots.end() && *k < end_ns; ++k) {
    edges.push_back(*k);
  }
  edges.push_back(end_ns);
  const std::size_t windows = edges.size() - 1;

  // Columns: 0 = interval length, then each class with busy time; segments without a class
  // (kNoClass) are idle time and keep column 0.
  std::vector<std::uint32_t> column_of_class(class_count, kIdleColumn);
  std::uint32_t columns = 1;
  for (const Segment& s : segments) {
    if (s.klass != kNoClass && column_of_class[s.klass] == kIdleColumn) column_of_class[s.klass] = columns++;
  }
  out.classes = columns - 1;
  const auto column_of = [&](const Segment& s) { return s.klass == kNoClass ? kIdleColumn : column_of_class[s.klass]; };

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
  const std::size_t min_windows = limits.min_windows > 0 ? limits.min_windows : 3 * static_cast<std::size_t>(columns);
  if (out.classes == 0) {
    out.why_not = "no span with a class lies in the window";
    return out;
  }
  if (columns > kMaxColumns) {
    out.why_not = fmt::format("{} classes, more than the fit takes ({}): map span names to classes "
                              "(AttributionOptions::class_of, --classes)", out.classes, kMaxColumns - 1);
    return out;
  }
  if (out.windows < min_windows) {
    out.why_not = fmt::format("{} whole update intervals for {} unknowns (need {})", out.windows, columns, min_windows);
    return out;
  }

  const auto separates = [&](const NnlsFit& fit) {
    if (fit.rank < static_cast<int>(columns) || fit.condition_number > limits.max_condition) return false;
    for (std::uint32_t c = 1; c < columns; ++c) {
      if (identified(fit.coefficients(c), fit.standard_error(c), limits.max_relative_se)) return true;
    }
    return false;
  };
  // The fit with the bounds as read: when it separates no class, no shift is searched for (the
  // search costs more than the rest of the refinement).
  WindowPieces pieces = cut_into_windows(segments, edges, column_of);
  NnlsFit fit = [&] {
    const NormalEquations equations = normal_equations(pieces, window_energy_j, first_row, end_row, columns);
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
    const std::vector<TimeNs> search_edges(edges.begin(), edges.begin() + static_cast<std::ptrdiff_t>(search_end + 1));
    // The last searched interval also collects the segments' time past its end: left out.
    const auto rss_at = [&](double delay_ns) {
      const WindowPieces p = cut_into_windows(early, moved_earlier(search_edges, std::llround(delay_ns)), column_of);
      return residual_sum_of_squares(normal_equations(p, window_energy_j, first_row, search_end - 1, columns));
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

  if (out.read_delay_ns > 0) {
    pieces = cut_into_windows(segments, moved_earlier(edges, out.read_delay_ns), column_of);
    const NormalEquations equations = normal_equations(pieces, window_energy_j, first_row, end_row, columns);
    fit = fit_nnls_normal(equations.gram, equations.aty, equations.yty, equations.rows);
  }
  out.busy_s = pieces.sweep.busy_s;
  out.condition_number = std::isfinite(fit.condition_number) ? fit.condition_number : 1e300;
  if (fit.rank < static_cast<int>(columns) || fit.condition_number > limits.max_condition) {
    out.why_not = fmt::format(
        "the update intervals do not separate the classes: rank {} of {}, condition number {:.3g} (limit {:.3g})",
        fit.rank, columns, fit.condition_number, limits.max_condition);
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
    out.why_not = fmt::format("no class power has a standard error within ±{:.0f} %", 100.0 * limits.max_relative_se);
    return out;
  }

  // Each interval's energy split ∝ shared busy time × weight (idle stretches: the idle weight).
  const SweepResult& sweep = pieces.sweep;
  std::vector<double> mean_w(windows, 0.0);
  std::vector<double> joules_per_load(windows, 0.0);
  for (std::size_t j = 0; j < windows; ++j) {
    mean_w[j] = pieces.window_s[j] > 0.0 ? window_energy_j[j] / pieces.window_s[j] : 0.0;
    const auto weight = [&](std::uint32_t c) { return std::isnan(column_weight_w[c]) ? mean_w[j] : column_weight_w[c]; };
    double load = weight(kIdleColumn) * (sweep.edge_idle_s[j + 1] - sweep.edge_idle_s[j]);
    for (std::uint32_t k = pieces.piece_begin[j]; k < pieces.piece_begin[j + 1]; ++k) {
      load += weight(pieces.piece_column[k]) * pieces.piece_shared_s[k];
    }
    joules_per_load[j] = load > 0.0 ? window_energy_j[j] / load : 0.0;
  }
  out.segment_energy_j.assign(segments.size(), 0.0);
  for (std::size_t i = 0; i < segments.size(); ++i) {
    const double fixed_w = column_weight_w[column_of(segments[i])];
    double energy = 0.0;
    for (std::size_t j = sweep.begin_window[i]; j <= pieces.last_window(i); ++j) {
      const double weight = std::isnan(fixed_w) ? mean_w[j] : fixed_w;
      energy += joules_per_load[j] * weight * shared_time_in_window(sweep, segments[i], i, static_cast<std::uint32_t>(j));
    }
    out.segment_energy_j[i] = energy;
  }
  out.segment_shared_s = std::move(pieces.sweep.shared_time_s);
  out.applied = true;
  return out;
}

}  // namespace jouleprof::attribution
