#include "sampling/counter_uncertainty.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <string_view>

#include "core/counter_knots.hpp"
#include "core/gap_overlap.hpp"

namespace jouleprof {

namespace {

// The instants between which a channel's energy is known as one interval's: a counter's knots,
// every reading of a power channel.
std::vector<std::size_t> interval_bounds(const Series& s) {
  if (s.channel().kind == ChannelKind::kEnergyCounter) return counter_knots(s);
  std::vector<std::size_t> all(s.size());
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
  return all;
}

double interval_energy_j(const Series& s, std::size_t from, std::size_t to) {
  if (s.channel().kind == ChannelKind::kEnergyCounter) return s[to].value - s[from].value;
  return 0.5 * (s[from].value + s[to].value) * ns_to_s(s[to].t_ns - s[from].t_ns);
}

// The interpolated share of the interval [k0, k1] on the `inside` side of a window edge at t,
// bounded by the powers the device showed: its energy lies in [max(lo·in, E − hi·out),
// min(hi·in, E − lo·out)]; half that range.
double edge_half_width_j(double interval_j, TimeNs k0, TimeNs t, TimeNs k1, PowerRange range) {
  const double in = ns_to_s(k1 - t);
  const double out = ns_to_s(t - k0);
  const double lowest = std::max(range.low_w * in, interval_j - range.high_w * out);
  const double highest = std::min(range.high_w * in, interval_j - range.low_w * out);
  return std::max(0.0, 0.5 * (highest - lowest));
}

// The energy a power reading averaged over the A before it leaves out of [a, b] (docs/
// uncertainty.md, `averaging`). Such readings weigh the true power p at u by
// w(u) = |[a, b] ∩ [u, u + A]| / A: the window's own weight, b − a, but m of it taken from before
// each end and m left out after. For b − a ≥ A, m = A/2 and w rises linearly over [a − A, a] and
// falls over [b − A, b], so the readings leave out m × (P̃_b − P̃_a), P̃ the power weighted by
// those ramps. The readings at a and b are the same stretches' flat means, and a ramp's weights
// differ from flat ones by 1/4 in total variation, so each P̃ lies within a quarter of the range
// of its reading: what is missing lies in m × (P(b) − P(a)) ± m × (high − low) / 2, and in
// ± m × (high − low) (both P̃ within the range) too. A shorter window (m = (b − a)(1 −
// (b − a) / 2A)) has only that bound. The range of the readings stands in for the power's: an
// average shows no more. A bias, not a spread: it moves the interval's ends, as a gap does.
UncertaintyPart averaging_part(const Series& s, TimeNs a, TimeNs b, PowerRange range) {
  const double averaging_s = ns_to_s(s.channel().averaging_ns);
  const double window_s = ns_to_s(b - a);
  const double spread_w = std::max(0.0, range.high_w - range.low_w);
  double low_j = 0.0;
  double high_j = 0.0;
  if (window_s >= averaging_s) {
    const double m = 0.5 * averaging_s;
    const double estimate_j = m * (s.value_at(b) - s.value_at(a));
    low_j = std::max(-m * spread_w, estimate_j - 0.5 * m * spread_w);
    high_j = std::min(m * spread_w, estimate_j + 0.5 * m * spread_w);
  } else {
    const double m = window_s * (1.0 - window_s / (2.0 * averaging_s));
    low_j = -m * spread_w;
    high_j = m * spread_w;
  }
  // The interval holds its figure whatever the estimate says.
  return {UncertaintyTerm::kAveraging, 0.0, std::min(0.0, low_j), std::max(0.0, high_j)};
}

// Half-width at 95 % of the difference of two readings each read up to a counter unit `unit`
// apart from the truth (rounding down to the unit): the sum of two uniform errors, ±unit.
double quantisation_half_width_j(double unit_j) { return unit_j; }

// A counter's unit: the smallest difference between two of its updates' increments (a counter
// counts whole units, so its increments differ by whole units: RAPL's 30 mJ updates of 61 µJ
// units differ by 61 µJ). Nullopt when every increment is alike (nothing shows the unit) or
// there are fewer than two.
std::optional<double> counter_unit_j(std::vector<double> increments) {
  std::sort(increments.begin(), increments.end());
  std::optional<double> unit;
  for (std::size_t k = 1; k < increments.size(); ++k) {
    const double d = increments[k] - increments[k - 1];
    // Differences within the doubles' own rounding of the values are no unit.
    if (d > 1e-12 * std::max(1.0, std::abs(increments[k])) && (!unit || d < *unit)) unit = d;
  }
  return unit;
}

struct SourceGain {
  std::string_view source;
  double fraction;
};

// 95 % gain error by source; docs/uncertainty.md gives each figure's reference.
constexpr SourceGain kSourceGains[] = {
    {"nvml", 0.05},          {"nvidia-smi-log", 0.05}, {"rocm-smi", 0.05},  {"level-zero", 0.05},
    {"rapl-powercap", 0.05}, {"rapl-perf", 0.05},      {"rapl-msr", 0.05},  {"perf-stat-log", 0.05},
    {"hwmon", 0.10},         {"power-supply", 0.10},   {"meter-csv", 0.02}, {"simulated", 0.0},
};
// A measured source not in the table: as the least documented of it.
constexpr double kUnlistedGain = 0.10;
// An estimate source's model error (CPU utilisation × TDP is off by tens of per cent).
constexpr double kEstimateModelError = 0.30;

}  // namespace

PowerRange observed_power_range(const Series& s, TimeNs begin_ns, TimeNs end_ns) {
  const std::vector<std::size_t> bounds = interval_bounds(s);
  PowerRange range{std::numeric_limits<double>::infinity(), 0.0};
  for (std::size_t k = 0; k + 1 < bounds.size(); ++k) {
    const TimeNs t0 = s[bounds[k]].t_ns;
    const TimeNs t1 = s[bounds[k + 1]].t_ns;
    if (t1 <= begin_ns || t0 >= end_ns || t1 <= t0) continue;
    const double p = interval_energy_j(s, bounds[k], bounds[k + 1]) / ns_to_s(t1 - t0);
    if (!std::isfinite(p)) continue;
    range.low_w = std::min(range.low_w, p);
    range.high_w = std::max(range.high_w, p);
  }
  if (range.low_w > range.high_w) range.low_w = range.high_w;
  return range;
}

TimeNs reading_staleness_ns(const Series& s) {
  const TimeNs period = s.channel().nominal_period_ns;
  if (period <= 0 || s.size() < 2) return 0;
  const TimeNs spacing = (s.end_ns() - s.begin_ns()) / static_cast<TimeNs>(s.size() - 1);
  return std::min(period, spacing);
}

double source_gain_error(const Channel& channel) {
  if (channel.provenance == Provenance::kSimulated) return 0.0;
  if (is_modelled(channel.provenance)) return 0.0;  // the model error covers it
  for (const SourceGain& g : kSourceGains) {
    if (g.source == channel.source) return g.fraction;
  }
  return kUnlistedGain;
}

double estimate_model_error(const Channel& channel) {
  return channel.provenance == Provenance::kEstimated ? kEstimateModelError : 0.0;
}

std::vector<UncertaintyPart> shared_channel_uncertainty(const Channel& channel, double energy_j) {
  std::vector<UncertaintyPart> parts;
  const double magnitude = std::abs(energy_j);
  if (const double gain = source_gain_error(channel); gain > 0.0)
    parts.push_back({UncertaintyTerm::kGain, gain * magnitude});
  if (const double model = estimate_model_error(channel); model > 0.0)
    parts.push_back({UncertaintyTerm::kEstimateModel, model * magnitude});
  return parts;
}

std::vector<UncertaintyPart> window_uncertainty(const Series& s, TimeNs begin_ns, TimeNs end_ns,
                                                double energy_j) {
  std::vector<UncertaintyPart> parts;
  const auto add = [&](UncertaintyTerm term, double half_width_j, double missing_low_j = 0.0,
                       double missing_high_j = 0.0) {
    if (half_width_j > 0.0 || missing_high_j > 0.0)
      parts.push_back({term, half_width_j, missing_low_j, missing_high_j});
  };
  const double magnitude = std::abs(energy_j);
  if (s.empty()) return parts;
  const TimeNs a = std::max(begin_ns, s.begin_ns());
  const TimeNs b = std::min(end_ns, s.end_ns());
  if (b <= a) return parts;

  const PowerRange range = observed_power_range(s, a, b);
  const std::vector<std::size_t> bounds = interval_bounds(s);
  std::vector<double> increments;
  double edges_squared = 0.0;
  for (std::size_t k = 0; k + 1 < bounds.size(); ++k) {
    const TimeNs t0 = s[bounds[k]].t_ns;
    const TimeNs t1 = s[bounds[k + 1]].t_ns;
    if (t1 <= a || t0 >= b) continue;
    const double e = interval_energy_j(s, bounds[k], bounds[k + 1]);
    if (e > 0.0) increments.push_back(e);
    if (t0 < a && a < t1) {
      const double h = edge_half_width_j(e, t0, a, t1, range);
      edges_squared += h * h;
    }
    if (t0 < b && b < t1) {
      // The inside of the end edge is [t0, b]: mirrored, the same rule.
      const double h = edge_half_width_j(e, -t1, -b, -t0, range);
      edges_squared += h * h;
    }
  }
  const std::optional<double> unit_j = s.channel().kind == ChannelKind::kEnergyCounter
                                           ? counter_unit_j(std::move(increments))
                                           : std::nullopt;
  if (unit_j) {
    add(UncertaintyTerm::kQuantisation, quantisation_half_width_j(*unit_j));
  }
  add(UncertaintyTerm::kWindowEdges, std::sqrt(edges_squared));
  // Each end read up to `staleness` late, independently: their difference is triangular on
  // [−staleness, staleness], whose 95 % half-width is (1 − √0.05) × staleness.
  const double mean_power_w = magnitude / ns_to_s(b - a);
  add(UncertaintyTerm::kReadDelay,
      mean_power_w * (1.0 - std::sqrt(0.05)) * ns_to_s(reading_staleness_ns(s)));
  if (s.channel().kind == ChannelKind::kPower && s.channel().averaging_ns > 0) {
    const UncertaintyPart averaging = averaging_part(s, a, b, range);
    if (averaging.missing_high_j > averaging.missing_low_j) parts.push_back(averaging);
  }

  TimeNs gap_ns = 0;
  for (const Gap& g : s.gaps()) {
    if (gap_overlaps(g, a, b)) gap_ns += std::min(g.end_ns, b) - std::max(g.begin_ns, a);
  }
  if (gap_ns > 0) {
    add(UncertaintyTerm::kGaps, 0.0, range.low_w * ns_to_s(gap_ns), range.high_w * ns_to_s(gap_ns));
  }
  return parts;
}

std::vector<UncertaintyPart> repeating_window_uncertainty(const Series& s,
                                                          std::span<const RepetitionWindow> windows,
                                                          std::span<const double> energy_j) {
  std::vector<UncertaintyPart> parts;
  if (s.empty() || windows.empty()) return parts;
  const double n = static_cast<double>(windows.size());
  const double staleness_s = ns_to_s(reading_staleness_ns(s));
  const bool averages = s.channel().kind == ChannelKind::kPower && s.channel().averaging_ns > 0;
  // The intervals' ends and powers once; each window then looks up only its own.
  std::vector<TimeNs> ends;
  std::vector<double> powers_w;
  if (averages) {
    const std::vector<std::size_t> bounds = interval_bounds(s);
    for (std::size_t k = 0; k + 1 < bounds.size(); ++k) {
      const TimeNs t0 = s[bounds[k]].t_ns;
      const TimeNs t1 = s[bounds[k + 1]].t_ns;
      if (t1 <= t0) continue;
      const double p = interval_energy_j(s, bounds[k], bounds[k + 1]) / ns_to_s(t1 - t0);
      if (!std::isfinite(p)) continue;
      ends.push_back(t1);
      powers_w.push_back(p);
    }
  }
  UncertaintyPart read_delay{UncertaintyTerm::kReadDelay};
  UncertaintyPart averaging{UncertaintyTerm::kAveraging};
  for (std::size_t i = 0; i < windows.size(); ++i) {
    const TimeNs a = std::max(windows[i].begin_ns, s.begin_ns());
    const TimeNs b = std::min(windows[i].end_ns, s.end_ns());
    if (b <= a) continue;
    const double mean_power_w = std::abs(energy_j[i]) / ns_to_s(b - a);
    read_delay.half_width_j += mean_power_w * (1.0 - std::sqrt(0.05)) * staleness_s / n;
    if (!averages) continue;
    // The intervals that overlap (a, b): from the first ending after a to the one ending at or
    // after b (observed_power_range's rule).
    PowerRange range{std::numeric_limits<double>::infinity(), 0.0};
    for (auto k =
             static_cast<std::size_t>(std::upper_bound(ends.begin(), ends.end(), a) - ends.begin());
         k < ends.size(); ++k) {
      range.low_w = std::min(range.low_w, powers_w[k]);
      range.high_w = std::max(range.high_w, powers_w[k]);
      if (ends[k] >= b) break;
    }
    if (range.low_w > range.high_w) range.low_w = range.high_w;
    const UncertaintyPart window = averaging_part(s, a, b, range);
    averaging.missing_low_j += window.missing_low_j / n;
    averaging.missing_high_j += window.missing_high_j / n;
  }
  if (read_delay.half_width_j > 0.0) parts.push_back(read_delay);
  if (averaging.missing_high_j > averaging.missing_low_j) parts.push_back(averaging);
  return parts;
}

std::vector<UncertaintyPart> channel_uncertainty(const Series& series, TimeNs begin_ns,
                                                 TimeNs end_ns, double energy_j) {
  std::vector<UncertaintyPart> parts = shared_channel_uncertainty(series.channel(), energy_j);
  const std::vector<UncertaintyPart> window =
      window_uncertainty(series, begin_ns, end_ns, energy_j);
  parts.insert(parts.end(), window.begin(), window.end());
  return parts;
}

}  // namespace jouleprof
