#include "jouleprof/channel_summary.hpp"

#include <algorithm>

#include "sampling/counter_uncertainty.hpp"

namespace jouleprof {
namespace {

// A counter's value read at t holds the energy up to its last update, which may lie up to
// `staleness_ns` before t (the update period, or the poll interval when polls are more frequent).
// Each window's length is therefore widened by that much: the window whose ends were read at the
// same staleness still gives the true mean, and no window reads above the truth, so the peak of
// a steady 24 W does not come out as 24.08 W.
double counter_peak_w(const Series& s, TimeNs begin_ns, TimeNs end_ns, TimeNs window_ns,
                      TimeNs staleness_ns) {
  const std::size_t first = s.lower_bound(begin_ns);
  double peak = 0.0;
  std::size_t j = first;
  for (std::size_t i = first; i < s.size() && s[i].t_ns <= end_ns; ++i) {
    while (j + 1 < i && s[i].t_ns - s[j + 1].t_ns >= window_ns) ++j;
    const TimeNs span = s[i].t_ns - s[j].t_ns;
    if (span >= window_ns)
      peak = std::max(peak, (s[i].value - s[j].value) / ns_to_s(span + staleness_ns));
  }
  return peak;
}

double power_peak_w(const Series& s, TimeNs begin_ns, TimeNs end_ns) {
  double peak = 0.0;
  for (std::size_t i = s.lower_bound(begin_ns); i < s.size() && s[i].t_ns <= end_ns; ++i) {
    peak = std::max(peak, s[i].value);
  }
  return peak;
}

}  // namespace

ChannelSummary summarize_channel(const Series& series, TimeNs begin_ns, TimeNs end_ns,
                                 const std::optional<IdleWindow>& idle, TimeNs peak_window_ns) {
  ChannelSummary summary;
  const Channel& channel = series.channel();
  summary.channel_id = channel.id;
  summary.provenance = channel.provenance;
  if (series.empty()) return summary;
  const TimeNs a = std::max(begin_ns, series.begin_ns());
  const TimeNs b = std::min(end_ns, series.end_ns());
  if (b <= a) return summary;

  summary.duration_ns = b - a;
  summary.energy_j = series.energy_between_j(a, b);
  summary.mean_power_w = summary.energy_j / ns_to_s(summary.duration_ns);
  if (channel.kind == ChannelKind::kEnergyCounter) {
    const TimeNs window = std::max(peak_window_ns, 2 * channel.measured_period_ns);
    // Widened windows may read a little under the truth, never under the run's mean, which
    // some window of the run must reach.
    summary.peak_power_w =
        summary.duration_ns > window
            ? std::max(summary.mean_power_w,
                       counter_peak_w(series, a, b, window, reading_staleness_ns(series)))
            : summary.mean_power_w;
  } else {
    summary.peak_power_w = power_peak_w(series, a, b);
  }

  summary.uncertainty = channel_uncertainty(series, a, b, summary.energy_j);
  summary.band = combine_uncertainty(summary.energy_j, summary.uncertainty);

  if (idle && idle->end_ns > idle->begin_ns) {
    const TimeNs ia = std::max(idle->begin_ns, series.begin_ns());
    const TimeNs ib = std::min(idle->end_ns, series.end_ns());
    if (ib > ia) {
      apply_idle_power(summary, series.energy_between_j(ia, ib) / ns_to_s(ib - ia));
    }
  }
  return summary;
}

void apply_idle_power(ChannelSummary& summary, double idle_power_w) {
  summary.idle_power_w = idle_power_w;
  // Below the baseline on average is noise around it, not energy given back.
  summary.net_energy_j =
      std::max(0.0, summary.energy_j - idle_power_w * ns_to_s(summary.duration_ns));
}

}  // namespace jouleprof
