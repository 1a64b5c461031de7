#include "jouleprof/gated_measurement.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "jouleprof/device_names.hpp"
#include "jouleprof/interval_trace.hpp"
#include "jouleprof/statistics.hpp"
#include "sampling/counter_uncertainty.hpp"

namespace jouleprof {
namespace {

bool is_gpu(const Channel& c) { return device_selects("gpu", c.device) || c.domain == "gpu"; }

double max_cv_for(const Channel& c, const GatedOptions& o) {
  if (c.domain == "dram") return o.dram_max_cv;
  return is_gpu(c) ? o.gpu_max_cv : o.cpu_max_cv;
}

TimeNs gate_window_ns(const GatedOptions& o) {
  return static_cast<TimeNs>(o.last_n) * o.interval_ns;
}

std::vector<ChannelGate> check_channels(const std::vector<Series>& series, TimeNs now,
                                        const GatedOptions& o, std::string& note) {
  std::vector<ChannelGate> gates;
  note.clear();
  const TimeNs window = gate_window_ns(o);
  for (const Series& s : series) {
    const Channel& c = s.channel();
    if (c.carries_energy()) {
      StabilityOptions stability{o.last_n, max_cv_for(c, o), o.tolerance};
      // Only intervals the series covers: one that began before the first reading would count
      // as a low-power interval, and under a loose threshold the window would pass (and the
      // baseline be taken over it) before the sampler had seen it.
      const StabilityCheck check = check_stability(
          rebin(s, std::max(now - window, s.begin_ns()), now, o.interval_ns), now, stability);
      gates.push_back({c.id, check.cv, check.threshold, check.stable, false});
      if (!check.stable && note.empty() && !check.reason.empty()) {
        note = c.id + ": " + check.reason;
      }
    } else if (c.kind == ChannelKind::kTemperature && !s.empty()) {
      double sum = 0.0;
      std::size_t n = 0;
      for (std::size_t i = s.lower_bound(now - window); i < s.size(); ++i, ++n) sum += s[i].value;
      const double cap = is_gpu(c) ? o.gpu_max_temperature_c : o.cpu_max_temperature_c;
      const double mean = n > 0 ? sum / static_cast<double>(n) : s.back().value;
      gates.push_back({c.id, mean, cap, mean <= cap, true});
    }
  }
  return gates;
}

std::string describe_failures(const std::vector<ChannelGate>& gates) {
  std::string text;
  for (const ChannelGate& g : gates) {
    if (g.ok) continue;
    if (!text.empty()) text += "; ";
    text +=
        g.temperature
            ? fmt::format("{} too hot ({:.1f} °C > {:.1f} °C)", g.channel_id, g.value, g.threshold)
            : fmt::format("{} unstable (CV {:.4f} > {:.4f})", g.channel_id, g.value, g.threshold);
  }
  return text;
}

// The channel furthest from passing (failing before passing, then by value ÷ threshold), for the
// progress line.
GateState gate_state(const GateLog& log, const GatedOptions& o, std::string note) {
  GateState state;
  state.passed = log.passed;
  state.checks = log.checks;
  state.waited_ns = log.waited_ns;
  state.timeout_ns = o.gate_timeout_ns;
  state.note = std::move(note);
  const auto ratio = [](const ChannelGate& g) {
    return g.threshold > 0.0 ? g.value / g.threshold : 0.0;
  };
  const ChannelGate* worst = nullptr;
  for (const ChannelGate& g : log.channels) {
    if (worst == nullptr || (!g.ok && worst->ok) || (g.ok == worst->ok && ratio(g) > ratio(*worst)))
      worst = &g;
  }
  if (worst != nullptr) {
    state.channel_id = worst->channel_id;
    state.value = worst->value;
    state.threshold = worst->threshold;
    state.temperature = worst->temperature;
  }
  return state;
}

// An unset `passed` with an empty failure: stopped through the progress reporter.
GateLog run_gate(const Monitor& monitor, const GatedOptions& o, ProgressReporter& progress) {
  GateLog log;
  const TimeNs begin = monotonic_now_ns();
  progress.phase("gate");
  for (;;) {
    if (!wait_until(monotonic_now_ns() + o.check_period_ns, progress)) return log;
    const TimeNs now = monotonic_now_ns();
    std::string note;
    log.channels =
        check_channels(monitor.recent(now - gate_window_ns(o) - o.interval_ns), now, o, note);
    ++log.checks;
    log.waited_ns = now - begin;
    log.passed = std::all_of(log.channels.begin(), log.channels.end(),
                             [](const ChannelGate& g) { return g.ok; });
    progress.gate(gate_state(log, o, std::move(note)));
    if (log.passed) return log;
    if (log.waited_ns >= o.gate_timeout_ns) {
      log.failure = fmt::format("not stable after {:.1f} s ({} checks): {}", ns_to_s(log.waited_ns),
                                log.checks, describe_failures(log.channels));
      return log;
    }
  }
}

// The slowest energy channel's update period: the window must span K of them.
TimeNs slowest_update_period(const std::vector<Series>& series, TimeNs fallback) {
  TimeNs slowest = 0;
  for (const Series& s : series) {
    if (!s.channel().carries_energy()) continue;
    TimeNs period = s.measured_update_period_ns();
    if (period == 0) period = s.channel().nominal_period_ns;
    slowest = std::max(slowest, period);
  }
  return slowest > 0 ? slowest : fallback;
}

ChannelCall analyse_channel(const Series& s, TimeNs start, TimeNs end, TimeNs after,
                            std::uint64_t calls, const GatedOptions& o) {
  const Channel& c = s.channel();
  ChannelCall call;
  call.channel_id = c.id;
  call.domain = c.domain;
  call.provenance = c.provenance;
  call.provenance_detail = c.provenance_detail;
  const TimeNs window = gate_window_ns(o);
  call.baseline_power_w = s.energy_between_j(start - window, start) / ns_to_s(window);
  const double total = s.energy_between_j(start, end);
  const double net = total - call.baseline_power_w * ns_to_s(end - start);

  CallAnalysisOptions tail_options;
  tail_options.tail_moving_average = o.tail_moving_average;
  tail_options.tail_max_ns = o.tail_wait_ns;
  tail_options.tail_margin_w = is_gpu(c) ? o.gpu_tail_margin_w : 0.0;
  const Tail tail =
      find_tail(rebin(s, end, after, o.interval_ns), 0, call.baseline_power_w, tail_options);

  std::vector<double> powers;
  for (const IntervalSample& bin : rebin(s, start, end, o.interval_ns))
    powers.push_back(bin.power_w());
  if (powers.empty()) powers.push_back(total / ns_to_s(end - start));
  const RepetitionStats power_stats = summarize(powers);

  const double per_call = 1.0 / static_cast<double>(calls);
  call.total_j = total * per_call;
  call.net_j = net * per_call;
  call.tail_j = tail.energy_j * per_call;
  call.net_plus_tail_j = call.net_j + call.tail_j;
  call.tail_duration_ns = tail.duration_ns;
  call.mean_power_w = power_stats.mean;
  call.median_power_w = power_stats.median;
  call.stdev_power_w = power_stats.stdev;
  call.window_terms = window_uncertainty(s, start, end, total);
  for (UncertaintyPart& part : call.window_terms) {
    part.half_width_j *= per_call;
    part.missing_low_j *= per_call;
    part.missing_high_j *= per_call;
  }
  return call;
}

void summarise(GatedResult& result) {
  if (result.repetitions.empty()) return;
  for (std::size_t c = 0; c < result.repetitions.front().channels.size(); ++c) {
    std::vector<double> total, net, tail, net_tail;
    for (const GatedRepetition& r : result.repetitions) {
      total.push_back(r.channels[c].total_j);
      net.push_back(r.channels[c].net_j);
      tail.push_back(r.channels[c].tail_j);
      net_tail.push_back(r.channels[c].net_plus_tail_j);
    }
    const std::size_t channel[] = {c};
    result.summary.push_back({result.repetitions.front().channels[c].channel_id, summarize(total),
                              summarize(net), summarize(tail), summarize(net_tail),
                              summed_band(result, channel, GatedFigure::kTotal),
                              summed_band(result, channel, GatedFigure::kNet),
                              summed_band(result, channel, GatedFigure::kNetPlusTail)});
  }
}

}  // namespace

double figure_of(const ChannelCall& call, GatedFigure figure) {
  switch (figure) {
    case GatedFigure::kTotal:
      return call.total_j;
    case GatedFigure::kNet:
      return call.net_j;
    case GatedFigure::kNetPlusTail:
      return call.net_plus_tail_j;
  }
  return call.total_j;
}

// The sum per repetition; each channel's terms that repeat alike, for its mean (the source's on
// the mean figure, the windows' read delay averaged); and the first window's varying terms, which
// stand in for the spread of a single repetition. The windows' terms are the total's (the
// baseline's are far smaller: its window is longer).
EnergyBand summed_band(const GatedResult& result, std::span<const std::size_t> channels,
                       GatedFigure figure) {
  if (result.repetitions.empty()) return repeated_band({}, {}, {});
  const double n = static_cast<double>(result.repetitions.size());
  std::vector<double> sums(result.repetitions.size(), 0.0);
  std::vector<UncertaintyPart> shared;
  std::vector<UncertaintyPart> single_window;
  for (const std::size_t c : channels) {
    double mean = 0.0;
    UncertaintyPart read_delay{UncertaintyTerm::kReadDelay};
    for (std::size_t r = 0; r < result.repetitions.size(); ++r) {
      const ChannelCall& call = result.repetitions[r].channels.at(c);
      const double value = figure_of(call, figure);
      sums[r] += value;
      mean += value / n;
      for (const UncertaintyPart& part : call.window_terms) {
        if (part.term == UncertaintyTerm::kReadDelay)
          read_delay.half_width_j += part.half_width_j / n;
      }
    }
    const ChannelCall& first = result.repetitions.front().channels.at(c);
    if (const Series* series = result.profile.find_series(first.channel_id); series != nullptr) {
      const std::vector<UncertaintyPart> own = shared_channel_uncertainty(series->channel(), mean);
      shared.insert(shared.end(), own.begin(), own.end());
    }
    if (read_delay.half_width_j > 0.0) shared.push_back(read_delay);
    for (const UncertaintyPart& part : first.window_terms) {
      if (!repeats_alike(part.term)) single_window.push_back(part);
    }
  }
  return repeated_band(sums, shared, single_window);
}

Result<GatedResult> measure_gated(Monitor& monitor, const MeasuredCall& call, const GatedOptions& o,
                                  ProgressReporter* progress_or_null) {
  ProgressOrSilent progress(progress_or_null);
  if (o.interval_ns <= 0 || o.last_n < 2 || o.repetitions == 0) {
    return invalid_input("gated measurement", "interval/last_n/repetitions",
                         fmt::format("{} ns/{}/{}", o.interval_ns, o.last_n, o.repetitions),
                         "the interval must be positive, N at least 2, repetitions at least 1");
  }
  GatedResult result;
  JP_RETURN_IF_ERROR(monitor.start());
  const TimeNs sampling_began = monotonic_now_ns();

  // Warm-up, and the time of one call (at least one run, even with no warm-up asked for).
  progress->phase("warm-up");
  for (std::size_t i = 0; i < std::max<std::size_t>(o.warmup_runs, 1); ++i) {
    const TimeNs t0 = monotonic_now_ns();
    const Status st = call();
    result.single_call_ns = std::max<TimeNs>(monotonic_now_ns() - t0, 1);
    if (!st) {
      monitor.stop();
      return st.error().with_context("the measured call failed during warm-up");
    }
  }
  result.update_period_ns = slowest_update_period(monitor.recent(sampling_began), o.interval_ns);
  result.min_window_ns = static_cast<TimeNs>(o.min_counter_updates) * result.update_period_ns;

  const auto stopped = [&](std::size_t r) {
    result.incomplete = true;
    result.missing =
        fmt::format("repetitions {} to {} not measured: stopped on request", r + 1, o.repetitions);
  };
  for (std::size_t r = 0; r < o.repetitions; ++r) {
    GatedRepetition rep;
    progress->step(r + 1, o.repetitions);
    rep.gate = run_gate(monitor, o, *progress);
    if (progress->stop_requested()) {
      stopped(r);
      break;
    }
    if (!rep.gate.passed) {
      result.incomplete = true;
      result.missing =
          fmt::format("repetitions {} to {} not measured: the stability gate gave up: {}", r + 1,
                      o.repetitions, rep.gate.failure);
      break;
    }
    // The window begins and ends on fresh readings (the few microseconds between a reading and
    // the call are idle time, which the baseline removes from the net figure).
    // The call repeats until the window spans K counter updates: a count fixed in advance from
    // one timed run would fall short whenever the machine slows the calls down.
    progress->phase("calls");
    const TimeNs start = monitor.sync();
    Status failed;
    std::uint64_t calls = 0;
    do {
      failed = call();
      ++calls;
      progress->tick();
    } while (failed.ok() && !progress->stop_requested() &&
             monotonic_now_ns() - start < result.min_window_ns);
    const TimeNs end = monitor.sync();
    if (progress->stop_requested()) {
      stopped(r);
      break;
    }
    if (!failed.ok()) {
      result.incomplete = true;
      result.missing = fmt::format("repetitions {} to {} not measured: the call failed: {}", r + 1,
                                   o.repetitions, failed.error().message());
      break;
    }
    progress->phase("tail");
    if (!wait_until(end + o.tail_wait_ns, *progress)) {
      stopped(r);
      break;
    }
    const TimeNs after = monotonic_now_ns();
    rep.calls = calls;
    rep.start_ns = start;
    rep.window_ns = end - start;
    for (const Series& s : monitor.recent(start - gate_window_ns(o) - o.interval_ns)) {
      if (s.channel().carries_energy()) {
        rep.channels.push_back(analyse_channel(s, start, end, after, rep.calls, o));
      }
    }
    result.repetitions.push_back(std::move(rep));
  }

  result.profile = monitor.stop();
  result.profile.meta.kind = "measure";
  result.profile.meta.options.gated.preset = o.preset;
  if (result.incomplete) {
    result.profile.meta.partial = true;
    result.profile.warnings.push_back(result.missing);
  }
  result.warnings = result.profile.warnings;
  summarise(result);
  return result;
}

}  // namespace jouleprof
