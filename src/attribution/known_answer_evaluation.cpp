#include "attribution/known_answer_evaluation.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <random>

namespace jouleprof::attribution {

namespace {

double quantile(std::vector<double> v, double q) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  const double pos = q * static_cast<double>(v.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  const std::size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (pos - static_cast<double>(lo)) * (v[hi] - v[lo]);
}

}  // namespace

std::string_view to_string(SimulatedCounter c) {
  switch (c) {
    case SimulatedCounter::kRapl1ms:
      return "(a) 1 ms counter";
    case SimulatedCounter::kNvml100ms:
      return "(b) 100 ms counter";
    case SimulatedCounter::kAveragedPower1s:
      return "(c) 1 s avg power";
  }
  return "?";
}

std::string_view to_string(WorkloadShape s) {
  return s == WorkloadShape::kSteadyStep ? "steady step" : "changing mix";
}

Calibration perturbed_calibration(const SimulatedWorkload& w, double relative_error,
                                  std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> off(-relative_error, relative_error);
  Calibration cal;
  cal.device = "gpu0";
  cal.provenance = fmt::format("simulator truth perturbed by a uniform ±{:.0f} % (seed {})",
                               100.0 * relative_error, seed);
  cal.origin = "simulator";
  cal.idle_power_w = w.idle_power_w * (1.0 + off(rng));
  for (const OpClassSpec& c : w.classes) {
    cal.classes.push_back(
        {c.name, c.power_w * (1.0 + off(rng)), "simulated isolated run", std::nullopt});
  }
  return cal;
}

Series simulate_counter(const SimulatedWorkload& w, SimulatedCounter counter, std::uint64_t seed) {
  switch (counter) {
    case SimulatedCounter::kRapl1ms:
      return simulate_rapl_counter(w, seed);
    case SimulatedCounter::kNvml100ms:
      return simulate_nvml_counter(w, seed);
    case SimulatedCounter::kAveragedPower1s:
      break;
  }
  return simulate_averaged_power(w);
}

EvaluationOutcome evaluate_method(const SimulatedWorkload& w, const Series& counter,
                                  AttributionMethod method, const Calibration& calibration,
                                  bool refine_interpolation) {
  EvaluationOutcome out;
  out.method = method;
  out.plain = !refine_interpolation;
  AttributionOptions options;
  options.default_method = method;
  options.refine_interpolation = refine_interpolation;
  options.class_of = [](std::string_view name) {
    if (name.rfind("step_", 0) == 0) return std::string();  // a step's self time is idle gaps
    const std::size_t slash = name.rfind('/');
    return std::string(slash == std::string_view::npos ? name : name.substr(slash + 1));
  };
  options.calibration_by_channel[counter.channel().id] = calibration;
  const std::vector<const Series*> series{&counter};
  Result<AttributionResult> result = attribute(series, w.timeline, options);
  if (!result) {
    out.note = result.error().message();
    out.declined = true;
    return out;
  }
  const AttributionResult& r = *result;
  const ChannelAttribution& ch = r.per_channel.front();
  const AttributionRecord& rec = r.records.front();
  if (const std::optional<RegressionDiagnostics>& regression = rec.diagnostics.regression) {
    if (!regression->identifiable) {
      out.declined = true;
      for (const std::string& n : rec.notes) {
        if (n.find("declined") != std::string::npos) out.note = n;
      }
    }
    if (regression->fit) {
      out.condition_number = regression->fit->condition_number;
      out.identified_classes = regression->fit->identified_classes;
    }
  }
  if (const std::optional<RefinementDiagnostics>& refinement = rec.diagnostics.refinement) {
    out.refined_classes = refinement->refined_classes;
    if (refinement->read_delay_us) out.read_delay_us = *refinement->read_delay_us;
  }
  out.windows = counter.update_indices().size();

  std::vector<double> est(w.classes.size(), 0.0);
  std::vector<double> truth(w.classes.size(), 0.0);
  double est_spans = 0.0;
  double true_spans = 0.0;
  for (std::size_t s = 0; s < w.class_of_span.size(); ++s) {
    est_spans += ch.span_energy_j[s];
    true_spans += w.true_span_energy_j[s];
    const std::int32_t c = w.class_of_span[s];
    if (c < 0) continue;
    est[static_cast<std::size_t>(c)] += ch.span_energy_j[s];
    truth[static_cast<std::size_t>(c)] += w.true_span_energy_j[s];
  }
  std::vector<double> errors;
  for (std::size_t c = 0; c < est.size(); ++c) {
    if (truth[c] > 0.0) errors.push_back(std::abs(est[c] - truth[c]) / truth[c]);
  }
  out.classes = errors.size();
  out.median_class_error = quantile(errors, 0.5);
  out.p90_class_error = quantile(errors, 0.9);
  out.tree_vs_measured =
      ch.measured_energy_j > 0.0
          ? std::abs(r.tree.energy_j - ch.measured_energy_j) / ch.measured_energy_j
          : 0.0;
  out.spans_vs_truth = true_spans > 0.0 ? std::abs(est_spans - true_spans) / true_spans : 0.0;
  return out;
}

std::vector<EvaluationOutcome> run_evaluation_grid(std::uint64_t seed) {
  std::vector<EvaluationOutcome> outcomes;
  for (WorkloadShape shape : {WorkloadShape::kSteadyStep, WorkloadShape::kChangingMix}) {
    SimulatorOptions options;
    options.seed = seed;
    options.shape = shape;
    options.run_ns = kEvaluationRunNs;
    const SimulatedWorkload w = simulate_workload(options);
    const Calibration calibration = perturbed_calibration(w, 0.05, seed + 7);
    for (SimulatedCounter counter : {SimulatedCounter::kRapl1ms, SimulatedCounter::kNvml100ms,
                                     SimulatedCounter::kAveragedPower1s}) {
      const Series series = simulate_counter(w, counter, seed + 11);
      const auto add = [&](EvaluationOutcome o) {
        o.counter = counter;
        o.shape = shape;
        outcomes.push_back(std::move(o));
      };
      add(evaluate_method(w, series, AttributionMethod::kInterpolate, calibration, false));
      for (AttributionMethod method :
           {AttributionMethod::kInterpolate, AttributionMethod::kHold, AttributionMethod::kRegress,
            AttributionMethod::kCalibrated, AttributionMethod::kTimeSplit}) {
        add(evaluate_method(w, series, method, calibration));
      }
    }
  }
  return outcomes;
}

std::vector<DurationSweepRow> run_duration_sweep(std::uint64_t seed) {
  std::vector<DurationSweepRow> rows;
  for (double scale : {1.0, 4.0, 16.0, 64.0}) {
    SimulatorOptions options;
    options.seed = seed;
    options.shape = WorkloadShape::kSteadyStep;
    options.duration_scale = scale;
    options.run_ns = kDurationSweepRunNs;
    const SimulatedWorkload w = simulate_workload(options);
    const Calibration calibration = perturbed_calibration(w, 0.05, seed + 7);
    const Series series = simulate_counter(w, SimulatedCounter::kRapl1ms, seed + 11);
    DurationSweepRow row;
    row.duration_scale = scale;
    row.outcome = evaluate_method(w, series, AttributionMethod::kInterpolate, calibration);
    row.outcome.counter = SimulatedCounter::kRapl1ms;
    row.plain = evaluate_method(w, series, AttributionMethod::kInterpolate, calibration, false);
    row.plain.counter = SimulatedCounter::kRapl1ms;
    AttributionOptions auto_options;
    const std::vector<const Series*> one{&series};
    if (auto r = attribute(one, w.timeline, auto_options)) {
      row.auto_method = r->records.front().method;
      row.typical_span_ms = r->records.front().diagnostics.typical_span_ms;
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

std::string format_duration_sweep(const std::vector<DurationSweepRow>& rows) {
  std::string out =
      fmt::format("{:<13} {:>13} {:>8} {:>8} {:>9}  {:>12} {:>8}  {}\n", "op durations",
                  "typical span", "median", "p90", "refined", "plain median", "p90", "auto picks");
  for (const DurationSweepRow& r : rows) {
    out += fmt::format("{:<13} {:>10.3f} ms {:>7.2f}% {:>7.2f}% {:>9}  {:>11.2f}% {:>7.2f}%  {}\n",
                       fmt::format("x{:g}", r.duration_scale), r.typical_span_ms,
                       100.0 * r.outcome.median_class_error, 100.0 * r.outcome.p90_class_error,
                       fmt::format("{}/{}", r.outcome.refined_classes, r.outcome.classes),
                       100.0 * r.plain.median_class_error, 100.0 * r.plain.p90_class_error,
                       recorded_method_name(r.auto_method));
  }
  return out;
}

std::string format_evaluation_table(const std::vector<EvaluationOutcome>& outcomes) {
  std::string out = fmt::format("{:<13} {:<19} {:<12} {:>8} {:>8} {:>10} {:>10} {:>8}  {}\n",
                                "workload", "counter", "method", "median", "p90", "tree-meas",
                                "spans-true", "windows", "note");
  for (const EvaluationOutcome& o : outcomes) {
    const std::string note =
        o.declined
            ? fmt::format("declined (cond {:.2g}, {}/{} classes identified): tree interpolated",
                          o.condition_number, o.identified_classes, o.classes)
        : o.method == AttributionMethod::kRegress
            ? fmt::format("cond {:.2g}, {}/{} classes identified", o.condition_number,
                          o.identified_classes, o.classes)
        : o.method == AttributionMethod::kInterpolate && !o.plain
            ? (o.refined_classes > 0
                   ? fmt::format(
                         "{}/{} classes refined below the update period, read delay {:.1f} us",
                         o.refined_classes, o.classes, o.read_delay_us)
                   : "not refined")
            : std::string();
    const std::string method = o.plain ? "plain interp" : std::string(to_string(o.method));
    out += fmt::format("{:<13} {:<19} {:<12} {:>7.2f}% {:>7.2f}% {:>9.4f}% {:>9.2f}% {:>8}  {}\n",
                       to_string(o.shape), to_string(o.counter), method,
                       100.0 * o.median_class_error, 100.0 * o.p90_class_error,
                       100.0 * o.tree_vs_measured, 100.0 * o.spans_vs_truth, o.windows, note);
  }
  return out;
}

}  // namespace jouleprof::attribution
