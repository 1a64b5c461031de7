#include "report/power_points.hpp"

#include <algorithm>

#include "core/counter_knots.hpp"
#include "core/gap_overlap.hpp"

namespace jouleprof::report {
namespace {

std::vector<PowerInterval> raw_intervals(const Series& s) {
  std::vector<PowerInterval> out;
  if (s.size() < 2) return out;
  if (s.channel().kind == ChannelKind::kEnergyCounter) {
    // Between the knots the profile's totals read the counter at (their times increase strictly),
    // so that the chart's area is the energy those totals count.
    const std::vector<std::size_t> knots = counter_knots(s);
    for (std::size_t k = 1; k < knots.size(); ++k) {
      const Sample& from = s[knots[k - 1]];
      const Sample& to = s[knots[k]];
      if (!has_gap_in(s, from.t_ns, to.t_ns)) {
        out.push_back({from.t_ns, to.t_ns, (to.value - from.value) / ns_to_s(to.t_ns - from.t_ns)});
      }
    }
  } else if (s.channel().kind == ChannelKind::kPower) {
    for (std::size_t i = 1; i < s.size(); ++i) {
      const TimeNs a = s[i - 1].t_ns;
      const TimeNs b = s[i].t_ns;
      if (b > a && !has_gap_in(s, a, b)) out.push_back({a, b, 0.5 * (s[i - 1].value + s[i].value)});
    }
  }
  return out;
}

std::vector<PowerInterval> bucketed(const std::vector<PowerInterval>& in, std::size_t buckets) {
  const TimeNs begin = in.front().begin_ns;
  const TimeNs end = in.back().end_ns;
  const double width = static_cast<double>(end - begin) / static_cast<double>(buckets);
  std::vector<double> energy(buckets, 0.0);
  std::vector<double> covered_s(buckets, 0.0);
  auto bucket_begin = [&](std::size_t k) {
    return begin + static_cast<TimeNs>(width * static_cast<double>(k));
  };
  for (const PowerInterval& iv : in) {
    auto k = static_cast<std::size_t>(static_cast<double>(iv.begin_ns - begin) / width);
    for (k = std::min(k, buckets - 1); k < buckets; ++k) {
      const TimeNs lo = std::max(iv.begin_ns, bucket_begin(k));
      const TimeNs hi = std::min(iv.end_ns, k + 1 == buckets ? end : bucket_begin(k + 1));
      if (lo >= iv.end_ns) break;
      if (hi > lo) {
        energy[k] += iv.power_w * ns_to_s(hi - lo);
        covered_s[k] += ns_to_s(hi - lo);
      }
    }
  }
  std::vector<PowerInterval> out;
  for (std::size_t k = 0; k < buckets; ++k) {
    if (covered_s[k] <= 0.0) continue;
    out.push_back(
        {bucket_begin(k), k + 1 == buckets ? end : bucket_begin(k + 1), energy[k] / covered_s[k]});
  }
  return out;
}

}  // namespace

std::vector<PowerInterval> power_intervals(const Series& series, std::size_t max_intervals) {
  std::vector<PowerInterval> raw = raw_intervals(series);
  if (max_intervals == 0 || raw.size() <= max_intervals) return raw;
  return bucketed(raw, max_intervals);
}

double highest_plotted_power_w(const std::vector<PowerInterval>& intervals) {
  double peak = 0.0;
  for (const PowerInterval& iv : intervals) peak = std::max(peak, iv.power_w);
  return peak;
}

}  // namespace jouleprof::report
