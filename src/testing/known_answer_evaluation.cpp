#include "testing/known_answer_evaluation.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "attribution/profile_tree.hpp"

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
  // What a calibration run states of its figures: here, that they are off by up to
  // ±relative_error (uniform: 95 % of them within 0.95 of that).
  for (const OpClassSpec& c : w.classes) {
    const double power_w = c.power_w * (1.0 + off(rng));
    ClassMeasurement stated;
    const double half_w = 0.95 * relative_error * power_w;
    stated.net_power_w =
        RepetitionStats{4, power_w, power_w, half_w / 2.0, power_w - half_w, power_w + half_w};
    cal.classes.push_back({c.name, power_w, "simulated isolated run", stated});
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
    out.calibrated_classes = refinement->calibrated_classes;
    if (refinement->read_delay_us) out.read_delay_us = *refinement->read_delay_us;
  }
  out.windows = counter.update_indices().size();
  out.picked = rec.method.value_or(method);

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
  std::vector<double> split(w.classes.size(), 0.0);
  for (std::size_t s = 0; s < w.class_of_span.size(); ++s) {
    if (w.class_of_span[s] >= 0)
      split[static_cast<std::size_t>(w.class_of_span[s])] += ch.span_split_j[s];
  }
  const ChannelFigures figures{&ch, true, std::nullopt};
  std::vector<double> errors;
  for (std::size_t c = 0; c < est.size(); ++c) {
    if (!(truth[c] > 0.0)) continue;
    errors.push_back(std::abs(est[c] - truth[c]) / truth[c]);
    out.class_bands.push_back(
        {truth[c], est[c], node_band(est[c], {ChannelPart{&figures, est[c], split[c]}})});
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

namespace {

// Every case of the grid, in table order: per workload shape and counter, plain interpolation,
// then each method in `methods`; visit(outcome) gets the outcome with its shape and counter.
template <typename Visit>
void for_each_case(std::uint64_t seed, TimeNs run_ns,
                   std::initializer_list<AttributionMethod> methods, const Visit& visit) {
  for (WorkloadShape shape : {WorkloadShape::kSteadyStep, WorkloadShape::kChangingMix}) {
    SimulatorOptions options;
    options.seed = seed;
    options.shape = shape;
    options.run_ns = run_ns;
    const SimulatedWorkload w = simulate_workload(options);
    const Calibration calibration = perturbed_calibration(w, 0.05, seed + 7);
    for (SimulatedCounter counter : {SimulatedCounter::kRapl1ms, SimulatedCounter::kNvml100ms,
                                     SimulatedCounter::kAveragedPower1s}) {
      const Series series = simulate_counter(w, counter, seed + 11);
      const auto add = [&](EvaluationOutcome o) {
        o.counter = counter;
        o.shape = shape;
        visit(std::move(o));
      };
      add(evaluate_method(w, series, AttributionMethod::kInterpolate, calibration, false));
      for (AttributionMethod method : methods) add(evaluate_method(w, series, method, calibration));
    }
  }
}

}  // namespace

std::vector<EvaluationOutcome> run_evaluation_grid(std::uint64_t seed) {
  std::vector<EvaluationOutcome> outcomes;
  for_each_case(
      seed, kEvaluationRunNs,
      {AttributionMethod::kInterpolate, AttributionMethod::kHold, AttributionMethod::kRegress,
       AttributionMethod::kCalibrated, AttributionMethod::kTimeSplit, AttributionMethod::kAuto},
      [&](EvaluationOutcome o) { outcomes.push_back(std::move(o)); });
  return outcomes;
}

std::vector<CoverageRow> run_coverage_grid(std::uint64_t first_seed, std::size_t seeds,
                                           TimeNs run_ns) {
  std::vector<CoverageRow> rows;
  std::vector<std::vector<double>> half_widths;
  std::vector<std::vector<double>> errors;
  std::vector<std::size_t> covered;
  for (std::uint64_t seed = first_seed; seed < first_seed + seeds; ++seed) {
    std::size_t row = 0;
    for_each_case(
        seed, run_ns,
        {AttributionMethod::kInterpolate, AttributionMethod::kHold, AttributionMethod::kRegress,
         AttributionMethod::kCalibrated, AttributionMethod::kTimeSplit, AttributionMethod::kAuto},
        [&](const EvaluationOutcome& o) {
          if (rows.size() <= row) {
            rows.push_back({o.shape, o.counter, o.method, o.plain});
            half_widths.emplace_back();
            errors.emplace_back();
            covered.push_back(0);
          }
          for (const ClassBand& b : o.class_bands) {
            ++rows[row].pairs;
            if (b.band.contains(b.true_j)) ++covered[row];
            if (b.estimate_j > 0.0)
              half_widths[row].push_back(b.band.half_width_j() / b.estimate_j);
            errors[row].push_back(std::abs(b.estimate_j - b.true_j) / b.true_j);
          }
          ++row;
        });
  }
  for (std::size_t r = 0; r < rows.size(); ++r) {
    rows[r].coverage = rows[r].pairs > 0
                           ? static_cast<double>(covered[r]) / static_cast<double>(rows[r].pairs)
                           : 0.0;
    rows[r].median_half_width = quantile(half_widths[r], 0.5);
    rows[r].median_error = quantile(errors[r], 0.5);
    rows[r].p90_error = quantile(errors[r], 0.9);
  }
  return rows;
}

std::string format_coverage_table(const std::vector<CoverageRow>& rows) {
  std::string out = fmt::format("{:<13} {:<19} {:<12} {:>7} {:>9} {:>11} {:>10} {:>7} {:>9}\n",
                                "workload", "counter", "method", "pairs", "coverage", "median ±",
                                "median err", "± / err", "p90/med");
  const auto ratio = [](double x, double median) { return median > 0.0 ? x / median : 0.0; };
  for (const CoverageRow& r : rows) {
    const std::string method = r.plain ? "plain interp" : std::string(to_string(r.method));
    out +=
        fmt::format("{:<13} {:<19} {:<12} {:>7} {:>8.1f}% {:>10.2f}% {:>9.2f}% {:>7.1f} {:>9.1f}\n",
                    to_string(r.shape), to_string(r.counter), method, r.pairs, 100.0 * r.coverage,
                    100.0 * r.median_half_width, 100.0 * r.median_error,
                    ratio(r.median_half_width, r.median_error), ratio(r.p90_error, r.median_error));
  }
  return out;
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
        : o.picked == AttributionMethod::kInterpolate && !o.plain
            ? (o.refined_classes + o.calibrated_classes > 0
                   ? fmt::format(
                         "{}/{} classes refined below the update period{}, read delay {:.1f} us",
                         o.refined_classes, o.classes,
                         o.calibrated_classes > 0
                             ? fmt::format(", {} calibrated", o.calibrated_classes)
                             : std::string(),
                         o.read_delay_us)
                   : "not refined")
            : std::string();
    const std::string picked =
        o.method == AttributionMethod::kAuto
            ? fmt::format("picked {}{}", to_string(o.picked), note.empty() ? "" : ": ")
            : std::string();
    const std::string method = o.plain ? "plain interp" : std::string(to_string(o.method));
    out +=
        fmt::format("{:<13} {:<19} {:<12} {:>7.2f}% {:>7.2f}% {:>9.4f}% {:>9.2f}% {:>8}  {}\n",
                    to_string(o.shape), to_string(o.counter), method, 100.0 * o.median_class_error,
                    100.0 * o.p90_class_error, 100.0 * o.tree_vs_measured, 100.0 * o.spans_vs_truth,
                    o.windows, picked + note);
  }
  return out;
}

}  // namespace jouleprof::attribution
