#include "attribution/energy_curve.hpp"

#include <algorithm>

#include "core/counter_knots.hpp"
#include "core/gap_overlap.hpp"

namespace jouleprof::attribution {

EnergyCurve EnergyCurve::from_series(const Series& series, IntegrationRule rule) {
  EnergyCurve curve;
  if (series.channel().kind == ChannelKind::kEnergyCounter) {
    // The knots by the series' own rule, so that the curve and Series::energy_between_j agree.
    const std::vector<std::size_t> knots = counter_knots(series);
    curve.knot_t_ns_.reserve(knots.size());
    curve.g_j_.reserve(knots.size());
    const double origin_j = knots.empty() ? 0.0 : series[knots.front()].value;
    for (std::size_t i : knots) {
      curve.knot_t_ns_.push_back(series[i].t_ns);
      curve.g_j_.push_back(series[i].value - origin_j);
    }
    const std::size_t n = curve.knot_t_ns_.size();
    curve.slope_w_.assign(n, 0.0);
    curve.ramp_w_per_s_.assign(n, 0.0);
    std::vector<double> interval_power_w(n, 0.0);
    for (std::size_t i = 0; i + 1 < n; ++i) {
      interval_power_w[i] = (curve.g_j_[i + 1] - curve.g_j_[i]) /
                            ns_to_s(curve.knot_t_ns_[i + 1] - curve.knot_t_ns_[i]);
    }
    for (std::size_t i = 0; i + 1 < n; ++i) {
      // Hold: the power last known at the start of the interval is the previous interval's mean
      // (the first interval has no earlier reading and keeps its own).
      curve.slope_w_[i] =
          rule == IntegrationRule::kHold && i > 0 ? interval_power_w[i - 1] : interval_power_w[i];
    }
    if (rule == IntegrationRule::kHold) {
      for (std::size_t i = 0; i + 1 < n; ++i) {
        curve.g_j_[i + 1] = curve.g_j_[i] + curve.slope_w_[i] * ns_to_s(curve.knot_t_ns_[i + 1] -
                                                                        curve.knot_t_ns_[i]);
      }
    }
    return curve;
  }
  if (series.channel().kind != ChannelKind::kPower) return curve;

  const std::size_t n = series.size();
  curve.knot_t_ns_.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    // Readings with equal times are kept: the zero-length interval between them carries no
    // energy, and the later reading starts the next interval (as Series::energy_between_j does).
    const Sample& s = series[i];
    curve.knot_t_ns_.push_back(s.t_ns);
    curve.slope_w_.push_back(s.value);
  }
  const std::size_t k = curve.knot_t_ns_.size();
  curve.g_j_.assign(k, 0.0);
  curve.ramp_w_per_s_.assign(k, 0.0);
  std::vector<double> power_w = curve.slope_w_;
  for (std::size_t i = 0; i + 1 < k; ++i) {
    const double dt_s = ns_to_s(curve.knot_t_ns_[i + 1] - curve.knot_t_ns_[i]);
    if (dt_s <= 0.0 || has_gap_in(series, curve.knot_t_ns_[i], curve.knot_t_ns_[i + 1])) {
      curve.slope_w_[i] = 0.0;
    } else if (rule == IntegrationRule::kTrapezoid) {
      curve.slope_w_[i] = power_w[i];
      curve.ramp_w_per_s_[i] = (power_w[i + 1] - power_w[i]) / dt_s;
    } else {
      curve.slope_w_[i] = power_w[i];
    }
    curve.g_j_[i + 1] =
        curve.g_j_[i] + curve.slope_w_[i] * dt_s + 0.5 * curve.ramp_w_per_s_[i] * dt_s * dt_s;
  }
  return curve;
}

TimeNs EnergyCurve::median_knot_spacing_ns() const {
  if (knot_t_ns_.size() < 2) return 0;
  std::vector<TimeNs> spacing(knot_t_ns_.size() - 1);
  for (std::size_t i = 0; i + 1 < knot_t_ns_.size(); ++i)
    spacing[i] = knot_t_ns_[i + 1] - knot_t_ns_[i];
  const auto mid = spacing.begin() + static_cast<std::ptrdiff_t>(spacing.size() / 2);
  std::nth_element(spacing.begin(), mid, spacing.end());
  return *mid;
}

double EnergyCurve::at(TimeNs t) const {
  if (empty()) return 0.0;
  if (t <= knot_t_ns_.front()) return g_j_.front();
  if (t >= knot_t_ns_.back()) return g_j_.back();
  const auto it = std::upper_bound(knot_t_ns_.begin(), knot_t_ns_.end(), t);
  return eval_in(static_cast<std::size_t>(it - knot_t_ns_.begin()) - 1, t);
}

}  // namespace jouleprof::attribution
