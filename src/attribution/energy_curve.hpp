// EnergyCurve: a channel's cumulative energy G(t) in joules as a continuous function of time,
// built once from a Series under one reading rule, then evaluated at increasing times in O(1)
// amortised (a forward cursor). Attribution reads every interval's energy as G(b) − G(a).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "jouleprof/clock.hpp"
#include "jouleprof/series.hpp"

namespace jouleprof::attribution {

class EnergyCurve {
 public:
  // Counters: knots are counter_knots(series) (core/counter_knots.hpp) (the readings at which the
  // counter's value is fresh); the stretch before the first knot is not covered; kTrapezoid is
  // the counter linear between knots, kHold the previous interval's mean power held over the next
  // (Smaragdine). Power: knots are all samples, read by `rule`; intervals that overlap a recorded
  // gap (core/gap_overlap.hpp) carry no energy.
  static EnergyCurve from_series(const Series& series, IntegrationRule rule);

  bool empty() const { return knot_t_ns_.size() < 2; }
  TimeNs begin_ns() const { return empty() ? 0 : knot_t_ns_.front(); }
  TimeNs end_ns() const { return empty() ? 0 : knot_t_ns_.back(); }
  const std::vector<TimeNs>& knots_ns() const { return knot_t_ns_; }
  // Median spacing of the knots: the channel's effective update period.
  TimeNs median_knot_spacing_ns() const;

  // G(t), clamped to the coverage. Random access: O(log n).
  double at(TimeNs t) const;

  // Forward evaluation for increasing t (amortised O(1)).
  class Cursor {
   public:
    explicit Cursor(const EnergyCurve& curve) : curve_(&curve) {}
    inline double at(TimeNs t);

   private:
    const EnergyCurve* curve_;
    std::size_t interval_ = 0;
  };

 private:
  inline double eval_in(std::size_t interval, TimeNs t) const;

  // Interval i = [knot_t_ns_[i], knot_t_ns_[i+1]]: G = g_j_[i] + slope_w_[i]·τ +
  // ½·ramp_w_per_s_[i]·τ² with τ = t − knot_t_ns_[i] in seconds.
  std::vector<TimeNs> knot_t_ns_;
  std::vector<double> g_j_;
  std::vector<double> slope_w_;
  std::vector<double> ramp_w_per_s_;
};

// Inline: the sweep reads the curve at every segment boundary, millions of times.
inline double EnergyCurve::eval_in(std::size_t interval, TimeNs t) const {
  const double tau_s = ns_to_s(t - knot_t_ns_[interval]);
  const double linear_j = g_j_[interval] + slope_w_[interval] * tau_s;
  // Counters and held power have no ramp: its zero term would change nothing, at two
  // multiplications per call of the sweep.
  const double ramp = ramp_w_per_s_[interval];
  return ramp == 0.0 ? linear_j : linear_j + 0.5 * ramp * tau_s * tau_s;
}

inline double EnergyCurve::Cursor::at(TimeNs t) {
  const EnergyCurve& c = *curve_;
  if (c.empty()) return 0.0;
  if (t <= c.knot_t_ns_.front()) return c.g_j_.front();
  if (t >= c.knot_t_ns_.back()) return c.g_j_.back();
  if (c.knot_t_ns_[interval_] > t) interval_ = 0;  // moved backwards: restart
  while (c.knot_t_ns_[interval_ + 1] <= t) ++interval_;
  return c.eval_in(interval_, t);
}

}  // namespace jouleprof::attribution
