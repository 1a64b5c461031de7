#include "attribution/refined_interpolation.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <string>

#include "attribution/nnls_regression.hpp"
#include "attribution/normal_equations.hpp"
#include "attribution/window_split.hpp"
#include "jouleprof/energy_band.hpp"

namespace jouleprof::attribution {

namespace {

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

// The normal equations of rows [first_row, end_row) as a function of the read delay d, the inner
// bounds moved to M_j = max(M_{j-1}, E_j − d), from one sweep over the segments that begin before
// E_{end_row}. The sweep's prefix S(t) (shared time per unit of weight, interval_sweep.hpp) does
// not depend on the bounds; with F_c(t) the shared time of class c before t,
//   B_{c,j}(d) = F_c(M_{j+1}) − F_c(M_j) = B_{c,j}(0) − Z_{c,j+1} + Z_{c,j},
// where Z_{c,j} = F_c(E_j) − F_c(M_j) is the class's shared time in [M_j, E_j). Only the pieces
// of segments in a bound's zone [E_j − max_delay, E_j) enter Z, so each delay tried costs a pass
// over the zones and the rows, not a sweep over the segments (the search tries about twelve).
class DelaySearch {
 public:
  template <typename ColumnOf>
  DelaySearch(const std::vector<Segment>& segments, const std::vector<TimeNs>& edges,
              TimeNs max_delay_ns, std::size_t first_row, std::size_t end_row,
              const std::vector<double>& window_energy_j, std::uint32_t columns,
              const ColumnOf& column_of)
      : edges_(edges.begin(), edges.begin() + static_cast<std::ptrdiff_t>(end_row + 1)),
        first_row_(first_row),
        end_row_(end_row),
        first_zone_(std::max<std::size_t>(first_row, 1)),
        columns_(columns),
        window_energy_j_(window_energy_j) {
    std::vector<std::uint32_t> early;  // every segment that weighs in S before the last bound
    for (std::uint32_t i = 0; i < segments.size(); ++i) {
      if (segments[i].begin_ns < edges_.back()) early.push_back(i);
    }
    const std::vector<double> shared_at = sweep_prefix(segments, early, max_delay_ns);
    std::vector<BasePiece> base;
    std::vector<ZonePiece> zone;
    for (std::size_t k = 0; k < early.size(); ++k) {
      const Segment& s = segments[early[k]];
      const std::uint32_t column = column_of(s);
      if (column == kIdleColumn) continue;  // idle time: weighs in S, adds no busy time
      const double s_begin = shared_at[2 * k];
      const double s_end = shared_at[2 * k + 1];
      const auto after_begin = static_cast<std::size_t>(
          std::upper_bound(edges_.begin(), edges_.end(), s.begin_ns) - edges_.begin());
      for (std::size_t j = std::max<std::size_t>(after_begin, 1) - 1;
           j < end_row_ && edges_[j] < s.end_ns; ++j) {
        const double lo = s.begin_ns >= edges_[j] ? s_begin : edge_shared_s_[j];
        const double hi = s.end_ns <= edges_[j + 1] ? s_end : edge_shared_s_[j + 1];
        if (j >= first_row_ && hi > lo) {
          base.push_back(BasePiece{static_cast<std::uint32_t>(j), column, s.weight * (hi - lo)});
        }
      }
      for (std::size_t j = std::max(after_begin, first_zone_);
           j <= end_row_ && edges_[j] - max_delay_ns < s.end_ns; ++j) {
        const double lo = s.begin_ns >= edges_[j] - max_delay_ns ? s_begin : zone_shared_s_[j];
        const double hi = s.end_ns <= edges_[j] ? s_end : edge_shared_s_[j];
        if (hi > lo)
          zone.push_back(ZonePiece{static_cast<std::uint32_t>(j), column, s.weight, lo, hi});
      }
    }
    base_ = grouped_by_row(std::move(base), base_begin_);
    zone_ = grouped_by_row(std::move(zone), zone_begin_);
    NormalEquationsBuilder builder(columns_);
    for (std::size_t j = first_row_; j < end_row_; ++j) {
      for (std::uint32_t k = base_begin_[j]; k < base_begin_[j + 1]; ++k)
        builder.add(base_[k].column, base_[k].shared_s);
      builder.end_row(ns_to_s(edges_[j + 1] - edges_[j]), window_energy_j_[j]);
    }
    as_read_ = builder.finish();
  }

  // With row j = r_j + δ_j (r_j as read, δ_j = Z_j − Z_{j+1} and the change of T_j), AᵀA grows
  // by Σ r_j δ_jᵀ + δ_j r_jᵀ + δ_j δ_jᵀ: δ_j touches only the few classes in two zones, so each
  // delay costs far less than accumulating every row again.
  NormalEquations at(TimeNs delay_ns) const {
    std::vector<TimeNs> moved(edges_.size());
    moved[0] = edges_[0];
    for (std::size_t j = 1; j < edges_.size(); ++j)
      moved[j] = std::max(moved[j - 1], edges_[j] - delay_ns);
    NormalEquations n = as_read_;
    Eigen::MatrixXd cross = Eigen::MatrixXd::Zero(columns_, columns_);  // Σ r_j δ_jᵀ
    Eigen::VectorXd row = Eigen::VectorXd::Zero(columns_);
    Eigen::VectorXd delta = Eigen::VectorXd::Zero(columns_);
    std::vector<bool> is_touched(columns_, false);
    std::vector<std::uint32_t> touched;
    const auto change = [&](std::uint32_t column, double by) {
      if (!is_touched[column]) {
        is_touched[column] = true;
        touched.push_back(column);
      }
      delta(column) += by;
    };
    // Z_j, the shared time in [M_j, E_j), per class: computed once per bound, used by both rows.
    std::vector<std::pair<std::uint32_t, double>> zone_after;
    std::vector<std::pair<std::uint32_t, double>> zone_before;
    const auto zone_shares = [&](std::size_t j,
                                 std::vector<std::pair<std::uint32_t, double>>& out) {
      out.clear();
      const double from = shared_s_in_zone(j, moved[j]);
      for (std::uint32_t k = zone_begin_[j]; k < zone_begin_[j + 1]; ++k) {
        const ZonePiece& p = zone_[k];
        const double shared = p.weight * (p.hi - std::max(p.lo, from));
        if (shared > 0.0) out.emplace_back(p.column, shared);
      }
    };
    if (first_row_ >= first_zone_) zone_shares(first_row_, zone_after);
    for (std::size_t j = first_row_; j < end_row_; ++j) {
      std::swap(zone_before, zone_after);  // Z_j: computed as the previous row's end
      zone_shares(j + 1, zone_after);
      for (const auto& [column, shared] : zone_before) change(column, shared);
      for (const auto& [column, shared] : zone_after) change(column, -shared);
      const double length_s = ns_to_s(edges_[j + 1] - edges_[j]);
      const double moved_length_s = ns_to_s(moved[j + 1] - moved[j]);
      if (moved_length_s != length_s) change(kIdleColumn, moved_length_s - length_s);
      if (touched.empty()) continue;
      row(kIdleColumn) = length_s;
      for (std::uint32_t k = base_begin_[j]; k < base_begin_[j + 1]; ++k)
        row(base_[k].column) += base_[k].shared_s;
      const double energy_j = window_energy_j_[j];
      for (std::uint32_t c : touched) {
        cross.col(c) += delta(c) * row;
        for (std::uint32_t c2 : touched) n.gram(c2, c) += delta(c) * delta(c2);
        n.aty(c) += delta(c) * energy_j;
      }
      row(kIdleColumn) = 0.0;
      for (std::uint32_t k = base_begin_[j]; k < base_begin_[j + 1]; ++k)
        row(base_[k].column) = 0.0;
      for (std::uint32_t c : touched) {
        delta(c) = 0.0;
        is_touched[c] = false;
      }
      touched.clear();
    }
    n.gram += cross + cross.transpose();
    return n;
  }

 private:
  // A segment's shared time in one row as read.
  struct BasePiece {
    std::uint32_t row;
    std::uint32_t column;
    double shared_s;
  };
  // A segment in the zone of bound `row`: S at its begin and end inside the zone.
  struct ZonePiece {
    std::uint32_t row;
    std::uint32_t column;
    double weight;
    double lo;
    double hi;
  };

  // S at the begin (2k) and end (2k + 1) of each segments[early[k]]; fills edge_shared_s_ and
  // zone_shared_s_ (S at each bound and zone start) and the breakpoints of S inside the zones.
  std::vector<double> sweep_prefix(const std::vector<Segment>& segments,
                                   const std::vector<std::uint32_t>& early, TimeNs max_delay_ns) {
    const std::size_t n = early.size();
    std::vector<std::uint32_t> by_begin(n);
    std::vector<std::uint32_t> by_end(n);
    for (std::uint32_t k = 0; k < n; ++k) by_begin[k] = by_end[k] = k;
    const auto begin_of = [&](std::uint32_t k) { return segments[early[k]].begin_ns; };
    const auto end_of = [&](std::uint32_t k) { return segments[early[k]].end_ns; };
    const auto sort_by = [](std::vector<std::uint32_t>& order, const auto& time_of) {
      const auto earlier = [&](std::uint32_t x, std::uint32_t y) {
        return time_of(x) < time_of(y);
      };
      if (!std::is_sorted(order.begin(), order.end(), earlier))
        std::stable_sort(order.begin(), order.end(), earlier);
    };
    sort_by(by_begin, begin_of);
    sort_by(by_end, end_of);
    // Points where S is kept: every bound (+ its index) and every zone start (−1 − index).
    std::vector<std::pair<TimeNs, std::int64_t>> points;
    for (std::size_t j = 0; j < edges_.size(); ++j) {
      points.emplace_back(edges_[j], static_cast<std::int64_t>(j));
      if (j >= first_zone_)
        points.emplace_back(edges_[j] - max_delay_ns, -1 - static_cast<std::int64_t>(j));
    }
    const auto by_time = [](const auto& x, const auto& y) { return x.first < y.first; };
    if (!std::is_sorted(points.begin(), points.end(), by_time))
      std::stable_sort(points.begin(), points.end(), by_time);
    edge_shared_s_.assign(edges_.size(), 0.0);
    zone_shared_s_.assign(edges_.size(), 0.0);
    zone_breakpoint_.assign(edges_.size(), 0);

    std::vector<double> shared_at(2 * n);
    constexpr TimeNs kNever = std::numeric_limits<TimeNs>::max();
    std::size_t ib = 0;
    std::size_t ie = 0;
    std::size_t ip = 0;
    std::size_t active = 0;
    int open_zones = 0;
    double weight = 0.0;
    double shared = 0.0;
    TimeNs last_t = std::numeric_limits<TimeNs>::min();
    while (ib < n || ie < n || ip < points.size()) {
      const TimeNs tb = ib < n ? begin_of(by_begin[ib]) : kNever;
      const TimeNs te = ie < n ? end_of(by_end[ie]) : kNever;
      const TimeNs tp = ip < points.size() ? points[ip].first : kNever;
      const TimeNs t = std::min({tb, te, tp});
      if (active > 0 && t > last_t) shared += ns_to_s(t - last_t) / weight;
      last_t = t;
      if (te == t) {
        const std::uint32_t k = by_end[ie++];
        shared_at[2 * k + 1] = shared;
        weight = --active == 0 ? 0.0 : weight - segments[early[k]].weight;
      } else if (tp == t) {
        const std::int64_t point = points[ip++].second;
        if (point >= 0) {
          edge_shared_s_[static_cast<std::size_t>(point)] = shared;
          if (static_cast<std::size_t>(point) >= first_zone_) --open_zones;
        } else {
          const auto j = static_cast<std::size_t>(-1 - point);
          zone_shared_s_[j] = shared;
          zone_breakpoint_[j] = breakpoint_ns_.size();  // recorded below
          ++open_zones;
        }
      } else {
        const std::uint32_t k = by_begin[ib++];
        shared_at[2 * k] = shared;
        weight += segments[early[k]].weight;
        ++active;
      }
      if (open_zones > 0 || tp == t) {
        breakpoint_ns_.push_back(t);
        breakpoint_shared_s_.push_back(shared);
        breakpoint_slope_.push_back(active > 0 ? 1e-9 / weight : 0.0);
      }
    }
    return shared_at;
  }

  // S(t) for t in the zone of bound j (its breakpoints lie between the zone start's and the
  // bound's, both kept by sweep_prefix).
  double shared_s_in_zone(std::size_t j, TimeNs t) const {
    std::size_t k = zone_breakpoint_[j];
    while (k + 1 < breakpoint_ns_.size() && breakpoint_ns_[k + 1] <= t) ++k;
    return breakpoint_shared_s_[k] +
           static_cast<double>(t - breakpoint_ns_[k]) * breakpoint_slope_[k];
  }

  // Pieces in row order; begin[j] is the first of row j (a counting sort: rows are few).
  template <typename Piece>
  std::vector<Piece> grouped_by_row(std::vector<Piece> pieces, std::vector<std::uint32_t>& begin) {
    begin.assign(edges_.size() + 1, 0);
    for (const Piece& p : pieces) ++begin[p.row + 1];
    for (std::size_t j = 0; j + 1 < begin.size(); ++j) begin[j + 1] += begin[j];
    std::vector<std::uint32_t> fill(begin.begin(), begin.end() - 1);
    std::vector<Piece> out(pieces.size());
    for (const Piece& p : pieces) out[fill[p.row]++] = p;
    return out;
  }

  std::vector<TimeNs> edges_;  // E_0 … E_{end_row}
  std::size_t first_row_;
  std::size_t end_row_;
  std::size_t first_zone_;  // the first bound that moves and ends a row
  std::uint32_t columns_;
  const std::vector<double>& window_energy_j_;
  std::vector<double> edge_shared_s_;         // S(E_j)
  std::vector<double> zone_shared_s_;         // S(E_j − max_delay)
  std::vector<std::size_t> zone_breakpoint_;  // index of the breakpoint at each zone's start
  std::vector<TimeNs> breakpoint_ns_;
  std::vector<double> breakpoint_shared_s_;
  std::vector<double> breakpoint_slope_;  // dS/dt after the breakpoint, per ns
  std::vector<BasePiece> base_;
  std::vector<std::uint32_t> base_begin_;
  std::vector<ZonePiece> zone_;
  std::vector<std::uint32_t> zone_begin_;
  NormalEquations as_read_;
};

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

// Column 0 is the interval's length; then one column per class with busy time, in the order the
// segments first show them. Segments without a class (kNoClass) are idle time and keep column 0.
struct ClassColumns {
  std::vector<std::uint32_t> column_of_class;
  std::uint32_t columns = 1;

  std::uint32_t of(const Segment& s) const {
    return s.klass == kNoClass ? kIdleColumn : column_of_class[s.klass];
  }
};

ClassColumns class_columns(const std::vector<Segment>& segments, std::size_t class_count) {
  ClassColumns c;
  c.column_of_class.assign(class_count, kIdleColumn);
  for (std::size_t i = 0; i < segments.size() && c.columns <= class_count; ++i) {
    const Segment& s = segments[i];  // the loop stops once every class is seen
    if (s.klass != kNoClass && c.column_of_class[s.klass] == kIdleColumn)
      c.column_of_class[s.klass] = c.columns++;
  }
  return c;
}

// The whole update intervals [first, end) that enter the fit: the first and last may be cut by
// the attribution bounds, and their energy then carries interpolation.
struct FitRows {
  std::size_t first = 0;
  std::size_t end = 0;
  std::size_t count() const { return end > first ? end - first : 0; }
};

FitRows fit_rows(const EnergyCurve& curve, const std::vector<TimeNs>& edges) {
  const std::vector<TimeNs>& knots = curve.knots_ns();
  const auto is_knot = [&](TimeNs t) { return std::binary_search(knots.begin(), knots.end(), t); };
  const std::size_t windows = edges.size() - 1;
  return FitRows{is_knot(edges[0]) ? std::size_t{0} : std::size_t{1},
                 is_knot(edges[windows]) ? windows : windows - 1};
}

// Why the fit cannot be tried at all, or nothing.
std::optional<std::string> why_no_fit(const Refinement& out, std::uint32_t columns,
                                      const RefinementLimits& limits) {
  const std::size_t min_windows =
      limits.min_windows > 0 ? limits.min_windows : 3 * static_cast<std::size_t>(columns);
  if (out.classes == 0) return "no span with a class lies in the window";
  if (columns > kMaxColumns) {
    return fmt::format(
        "{} classes, more than the fit takes ({}): map span names to classes "
        "(AttributionOptions::class_of, --classes)",
        out.classes, kMaxColumns - 1);
  }
  if (out.windows < min_windows) {
    return fmt::format("{} whole update intervals for {} unknowns (need {})", out.windows, columns,
                       min_windows);
  }
  return std::nullopt;
}

NnlsFit fit_intervals(const std::vector<Segment>& segments, const SweepResult& sweep,
                      const std::vector<double>& window_s,
                      const std::vector<double>& window_energy_j, FitRows rows,
                      const ClassColumns& columns) {
  const auto column_of = [&](const Segment& s) { return columns.of(s); };
  const NormalEquations equations = normal_equations(
      segments, sweep, window_s, window_energy_j, rows.first, rows.end, columns.columns, column_of);
  return fit_nnls_normal(equations.gram, equations.aty, equations.yty, equations.rows);
}

// The counter's timestamps are read times: a poller sees each update some time after it
// happened, so every interval bound is late by the read delay, and the energy of the ops at each
// bound lands in the neighbouring interval. For ops as short as the delay that biases the fit.
// The mean delay is estimated from the readings and spans alone: the shift of the inner bounds
// (golden section over [0, period/10], or none) that leaves the smallest residual on the first
// whole intervals. Each interval keeps its measured energy whatever the shift.
TimeNs estimate_read_delay_ns(const std::vector<Segment>& segments, const EnergyCurve& curve,
                              const std::vector<TimeNs>& edges,
                              const std::vector<double>& window_energy_j, FitRows rows,
                              const ClassColumns& columns) {
  const std::size_t search_end = std::min(rows.end, rows.first + kDelaySearchWindows);
  const double range = static_cast<double>(curve.median_knot_spacing_ns()) / 10.0;
  // The last searched interval also collects the segments' time past its end: left out.
  const DelaySearch search(segments, edges, std::llround(range) + 1, rows.first, search_end - 1,
                           window_energy_j, columns.columns,
                           [&](const Segment& s) { return columns.of(s); });
  const auto rss_at = [&](double delay_ns) {
    return residual_sum_of_squares(search.at(std::llround(delay_ns)));
  };
  const double golden = (std::sqrt(5.0) - 1.0) / 2.0;
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
  return rss_at(best) < rss_at(0.0) ? std::llround(best) : 0;
}

// A known weight is more certain than `than` when its error is known and smaller (an unknown
// error, NaN, is the least certain).
bool more_certain(const std::optional<PieceWeight>& known, const PieceWeight& than) {
  return known && !std::isnan(known->relative_error) &&
         (std::isnan(than.relative_error) || known->relative_error < than.relative_error);
}

// Each column's weight: the fitted power of the idle time and of every identified class, known to
// 1.96 standard errors, unless a known power is more certain; the interval's mean power,
// anywhere in the range, for the others. Counts what was refined in `out`.
std::vector<PieceWeight> column_weights(const NnlsFit& fit, const ClassColumns& columns,
                                        const RefinementLimits& limits, const KnownWeights* known,
                                        Refinement& out) {
  std::vector<PieceWeight> weight(columns.columns, PieceWeight{kWindowMeanPower, kAnywhereInRange});
  const auto fitted = [&](std::uint32_t c, double power_w) {
    return PieceWeight{power_w, jouleprof::kNormal95 * fit.standard_error(c) / power_w};
  };
  out.idle_power_w = fit.coefficients(0);
  out.idle_refined = identified(fit.coefficients(0), fit.standard_error(0), limits.max_relative_se);
  if (out.idle_refined) weight[kIdleColumn] = fitted(kIdleColumn, fit.coefficients(0));
  if (known != nullptr && more_certain(known->idle, weight[kIdleColumn])) {
    weight[kIdleColumn] = *known->idle;
  }
  for (std::uint32_t c = 1; c < columns.columns; ++c) {
    if (identified(fit.coefficients(c), fit.standard_error(c), limits.max_relative_se)) {
      weight[c] = fitted(c, fit.coefficients(0) + fit.coefficients(c));
      ++out.refined_classes;
    }
  }
  if (known == nullptr) return weight;
  for (std::size_t klass = 0; klass < columns.column_of_class.size(); ++klass) {
    const std::uint32_t c = columns.column_of_class[klass];
    if (c == kIdleColumn || klass >= known->by_class.size()) continue;
    if (more_certain(known->by_class[klass], weight[c])) {
      if (!std::isnan(weight[c].relative_error)) --out.refined_classes;
      weight[c] = *known->by_class[klass];
      ++out.known_classes;
    }
  }
  return weight;
}

bool separates_a_class(const NnlsFit& fit, std::uint32_t columns, const RefinementLimits& limits) {
  if (fit.rank < static_cast<int>(columns) || fit.condition_number > limits.max_condition)
    return false;
  for (std::uint32_t c = 1; c < columns; ++c) {
    if (identified(fit.coefficients(c), fit.standard_error(c), limits.max_relative_se)) return true;
  }
  return false;
}

}  // namespace

Refinement refine_interpolation(const std::vector<Segment>& segments, const EnergyCurve& curve,
                                const std::vector<TimeNs>& edges, const SweepResult& as_read,
                                std::size_t class_count, const RefinementLimits& limits,
                                PowerRange power_range, const KnownWeights* known) {
  Refinement out;
  const ClassColumns columns = class_columns(segments, class_count);
  out.classes = columns.columns - 1;
  const std::vector<double> window_energy_j = interval_energies_j(curve, edges);
  const FitRows rows = fit_rows(curve, edges);
  out.windows = rows.count();
  if (std::optional<std::string> why = why_no_fit(out, columns.columns, limits)) {
    out.why_not = std::move(*why);
    return out;
  }

  // The fit with the bounds as read: when it separates no class, no shift is searched for (the
  // search costs more than the rest of the refinement).
  const SweepResult* sweep = &as_read;
  std::vector<double> window_s = interval_lengths_s(edges);
  NnlsFit fit = fit_intervals(segments, *sweep, window_s, window_energy_j, rows, columns);
  if (separates_a_class(fit, columns.columns, limits)) {
    out.read_delay_ns =
        estimate_read_delay_ns(segments, curve, edges, window_energy_j, rows, columns);
  }
  SweepResult moved_sweep;
  if (out.read_delay_ns > 0) {
    const std::vector<TimeNs> moved = moved_earlier(edges, out.read_delay_ns);
    moved_sweep = sweep_segments(segments, nullptr, moved);
    sweep = &moved_sweep;
    window_s = interval_lengths_s(moved);
    fit = fit_intervals(segments, *sweep, window_s, window_energy_j, rows, columns);
  }
  out.busy_s = sweep->busy_s;
  out.condition_number = std::isfinite(fit.condition_number) ? fit.condition_number : 1e300;
  if (fit.rank < static_cast<int>(columns.columns) || fit.condition_number > limits.max_condition) {
    out.why_not = "the update intervals do not separate the classes: " +
                  describe_conditioning(fit, columns.columns, limits.max_condition);
    return out;
  }
  const std::vector<PieceWeight> weight = column_weights(fit, columns, limits, known, out);
  if (!separates_a_class(fit, columns.columns, limits)) {
    out.why_not = fmt::format("no class power has a standard error within ±{:.0f} %",
                              100.0 * limits.max_relative_se);
    return out;
  }
  WindowSplitInputs split;
  split.segments = &segments;
  split.sweep = sweep;
  split.window_s = std::move(window_s);
  split.window_energy_j = window_energy_j;
  split.idle = weight[kIdleColumn];
  split.power_range = power_range;
  WindowSplit result =
      split_windows(split, [&](const Segment& s) { return weight[columns.of(s)]; });
  out.segment_energy_j = std::move(result.segment_energy_j);
  out.segment_split_j = std::move(result.segment_split_j);
  out.idle_split_j = result.idle_split_j;
  out.segment_shared_s = sweep->shared_time_s;
  out.applied = true;
  return out;
}

}  // namespace jouleprof::attribution
