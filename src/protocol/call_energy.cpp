#include "jouleprof/call_energy.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <vector>

#include "jouleprof/statistics.hpp"

namespace jouleprof {
namespace {

std::size_t nearest_sample(const IntervalTrace& trace, TimeNs t) {
  const auto it = std::lower_bound(trace.begin(), trace.end(), t,
                                   [](const IntervalSample& s, TimeNs v) { return s.end_ns < v; });
  if (it == trace.begin()) return 0;
  if (it == trace.end()) return trace.size() - 1;
  const auto before = it - 1;
  return static_cast<std::size_t>((t - before->end_ns <= it->end_ns - t ? before : it) -
                                  trace.begin());
}

}  // namespace

Tail find_tail(const IntervalTrace& trace, std::size_t first, double baseline_power_w,
               const CallAnalysisOptions& options) {
  Tail tail;
  if (first >= trace.size()) return tail;
  const double floor_w = baseline_power_w + options.tail_margin_w;
  const std::size_t ma = std::max<std::size_t>(options.tail_moving_average, 1);
  const TimeNs limit = trace[first].end_ns - trace[first].duration_ns + options.tail_max_ns;
  for (std::size_t i = first; i + ma <= trace.size() && trace[i].end_ns <= limit; ++i) {
    double sum = 0.0;
    for (std::size_t k = i; k < i + ma; ++k) sum += trace[k].power_w();
    if (sum / static_cast<double>(ma) < floor_w) break;
    tail.energy_j += trace[i].energy_j - baseline_power_w * ns_to_s(trace[i].duration_ns);
    tail.duration_ns += trace[i].duration_ns;
  }
  return tail;
}

Result<CallEnergy> analyse_call(const IntervalTrace& trace, TimeNs start_ns, TimeNs end_ns,
                                const CallAnalysisOptions& options) {
  if (trace.empty()) return Error(ErrorCode::kInvalidInput, "no samples to analyse");
  if (end_ns < start_ns) {
    return invalid_input("call", "end time", std::to_string(end_ns), "before the start time");
  }
  const std::size_t first = nearest_sample(trace, start_ns);
  const std::size_t end_index = nearest_sample(trace, end_ns);
  if (end_index <= first) {
    return Error(
        ErrorCode::kUnsupported,
        fmt::format("the call ({:.3f} ms) is shorter than one sample ({:.3f} ms): amplify "
                    "it (repeat it in a loop) to measure it",
                    ns_to_s(end_ns - start_ns) * 1e3, ns_to_s(trace[first].duration_ns) * 1e3));
  }

  CallEnergy result;
  std::vector<double> powers;
  for (std::size_t i = first; i < end_index; ++i) {
    result.total_j += trace[i].energy_j;
    result.duration_ns += trace[i].duration_ns;
    powers.push_back(trace[i].power_w());
  }
  result.window_samples = powers.size();
  const RepetitionStats power_stats = summarize(powers);
  result.mean_power_w = power_stats.mean;
  result.median_power_w = power_stats.median;
  result.stdev_power_w = power_stats.stdev;

  double baseline_energy = 0.0;
  TimeNs baseline_time = 0;
  const TimeNs baseline_from = start_ns - options.baseline_window_ns;
  for (std::size_t i = first; i-- > 0 && trace[i].end_ns >= baseline_from;) {
    baseline_energy += trace[i].energy_j;
    baseline_time += trace[i].duration_ns;
    ++result.baseline_samples;
  }
  if (baseline_time == 0) {
    return Error(ErrorCode::kInvalidInput,
                 "no samples before the call to take the idle baseline from");
  }
  result.baseline_power_w = baseline_energy / ns_to_s(baseline_time);
  result.net_j = result.total_j - result.baseline_power_w * ns_to_s(result.duration_ns);

  const Tail tail = find_tail(trace, end_index, result.baseline_power_w, options);
  result.tail_j = tail.energy_j;
  result.tail_duration_ns = tail.duration_ns;
  result.net_plus_tail_j = result.net_j + result.tail_j;
  return result;
}

}  // namespace jouleprof
