#include "testing/training_evaluation.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <numeric>
#include <random>

#include "core/csv.hpp"
#include "core/line_reader.hpp"
#include "core/parse.hpp"
#include "predict/prediction_interval.hpp"
#include "sources/power_log.hpp"
#include "sources/trace_text.hpp"
#include "testing/step_cross_validation.hpp"
#include "training/baselines.hpp"
#include "training/epoch_energy.hpp"
#include "training/epoch_log.hpp"
#include "training/pre.hpp"
#include "training/utilisation_power.hpp"

namespace jouleprof {

const MethodScore* EvaluationReport::find(std::string_view method) const {
  for (const MethodScore& s : scores) {
    if (s.method == method) return &s;
  }
  return nullptr;
}

const MethodScore* EvaluationReport::find(std::string_view method, std::string_view scope) const {
  for (const MethodScore& s : scores) {
    if (s.method == method && s.scope == scope) return &s;
  }
  return nullptr;
}

namespace {

MethodScore score(std::string method, std::string scope, const std::vector<double>& predicted_j,
                  const std::vector<double>& measured_j) {
  MethodScore s{std::move(method), std::move(scope), measured_j.size(), 0.0, 0.0};
  double ape = 0.0, se = 0.0;
  for (std::size_t i = 0; i < measured_j.size(); ++i) {
    ape += std::abs(predicted_j[i] - measured_j[i]) / measured_j[i];
    se += (predicted_j[i] - measured_j[i]) * (predicted_j[i] - measured_j[i]) * 1e-12;
  }
  const double n = static_cast<double>(std::max<std::size_t>(measured_j.size(), 1));
  s.mape_percent = 100.0 * ape / n;
  s.rmse_mj = std::sqrt(se / n);
  return s;
}

constexpr const char* kUtilisationMethod = "utilisation model (power x T)";
constexpr const char* kHybridMethod = "utilisation model + KRR on ratio";
constexpr const char* kEachUnseenScope = "all, each unseen";

}  // namespace

Result<EvaluationReport> evaluate_step(const std::string& runs_csv, const StepOptions& options,
                                       const GpuSpecTable& specs, int cv_folds,
                                       std::uint32_t cv_seed) {
  JP_TRY(PreTable table, read_pre_runs_csv(runs_csv, specs));
  // The trace paths: runs.csv's gpu_trace column, relative to its folder.
  // Read line by line, not through for_each_line: the errors of the traces it names are about
  // those files, not this one's lines.
  JP_TRY(LineReader lines, LineReader::open(runs_csv, "file"));
  JP_TRY(const std::optional<TextLine> header_line, lines.next());
  const auto header = split_fields(header_line ? header_line->text : "", ',');
  const auto trace_col = std::find(header.begin(), header.end(), "gpu_trace");
  if (trace_col == header.end()) {
    return invalid_input(runs_csv + ":1", "header", "gpu_trace", "column missing");
  }
  const auto trace_index = static_cast<std::size_t>(trace_col - header.begin());
  const std::filesystem::path folder = std::filesystem::path(runs_csv).parent_path();

  std::vector<double> measured, step, step_online, step_power, first_epoch, ml_co2, green,
      flops_tdp, flops;
  std::vector<StepRun> step_runs;
  std::size_t fallbacks = 0;
  std::size_t run_index = 0;
  while (true) {
    JP_TRY(const std::optional<TextLine> line, lines.next());
    if (!line) break;
    if (trim_ascii_space(line->text).empty()) continue;
    const PreRun& run = table.runs.at(run_index++);
    const auto fields = split_fields(line->text, ',');
    const std::string trace_path = (folder / std::string(fields.at(trace_index))).string();
    JP_TRY(PowerLog trace, read_nvidia_smi_log(trace_path, PowerLogOptions{}));
    const Series* power = trace.find(ChannelKind::kPower);
    const TimeNs begin = power->begin_ns();
    JP_TRY(EpochLog epochs, equal_split_epochs(begin, begin + s_to_ns(run.duration_s), run.epochs));
    JP_TRY(EpochEnergies energies, epoch_energies({power}, epochs));
    JP_TRY(StepProjection projection, step_project(energies.energy_j, run.epochs, options));
    JP_TRY(StepProjection by_power, step_power_project(energies.energy_j, energies.duration_s,
                                                       run.epochs, run.duration_s, options));
    StepOptions online = options;
    online.online_stability = true;
    JP_TRY(StepProjection by_detector, step_project(energies.energy_j, run.epochs, online));
    step_online.push_back(by_detector.total_j);
    if (projection.fallback) ++fallbacks;
    double utilisation = 0.0;
    if (const Series* util = trace.find(ChannelKind::kUtilisation)) {
      std::size_t n = 0;
      for (std::size_t i = util->lower_bound(begin);
           i < util->size() && (*util)[i].t_ns <= epochs.end_ns.back(); ++i, ++n) {
        utilisation += (*util)[i].value;
      }
      utilisation /= static_cast<double>(std::max<std::size_t>(n, 1));
    }
    JP_TRY(GpuSpec spec, specs.find(run.gpu_name));
    measured.push_back(run.energy_j);
    step_runs.push_back(StepRun{energies.energy_j, run.energy_j});
    step.push_back(projection.total_j);
    step_power.push_back(by_power.total_j);
    first_epoch.push_back(first_epoch_energy_j(energies.energy_j[0], run.epochs));
    ml_co2.push_back(ml_co2_energy_j(spec.tdp_w, run.duration_s));
    green.push_back(green_algorithms_energy_j(spec.tdp_w, utilisation, 0.0, run.duration_s));
    const double f =
        training_flops(run.features.gflops_per_sample, run.features.training_size, run.epochs);
    flops_tdp.push_back(
        flops_linear_energy_j(f, joules_per_flop_at_tdp(spec.tdp_w, spec.fp32_tflops)));
    flops.push_back(f);
  }
  // FLOPs-linear with J/FLOP fitted through the origin on every other run (leave-one-out).
  std::vector<double> flops_fit;
  for (std::size_t i = 0; i < flops.size(); ++i) {
    double fe = 0.0, ff = 0.0;
    for (std::size_t j = 0; j < flops.size(); ++j) {
      if (j == i) continue;
      fe += flops[j] * measured[j];
      ff += flops[j] * flops[j];
    }
    flops_fit.push_back(flops[i] * fe / ff);
  }
  EvaluationReport report;
  const std::string scope = "all runs with traces";
  report.scores.push_back(
      score(fmt::format("STEP (s={}, w={})", options.stable_epoch, options.window), scope, step,
            measured));
  report.scores.push_back(
      score(fmt::format("STEP online stability (CV <= {:.2f})", options.stability_cv), scope,
            step_online, measured));
  JP_TRY(const StepCrossValidation cv,
         cross_validate_step(step_runs, StepGrid{}, cv_folds, cv_seed));
  report.scores.push_back(score(fmt::format("STEP, s/w/rule by {}-fold CV over runs", cv_folds),
                                scope, cv.predicted_j, measured));
  report.scores.push_back(score("STEP power variant", scope, step_power, measured));
  report.scores.push_back(score("first epoch E1 x N", scope, first_epoch, measured));
  report.scores.push_back(score("ML CO2 (TDP x T)", scope, ml_co2, measured));
  report.scores.push_back(score("Green Algorithms (GPU part)", scope, green, measured));
  report.scores.push_back(score("FLOPs-linear (TDP / peak FLOP/s)", scope, flops_tdp, measured));
  report.scores.push_back(
      score("FLOPs-linear (J/FLOP fitted, leave-one-out)", scope, flops_fit, measured));
  report.notes.push_back(fmt::format(
      "{} runs: no per-epoch timestamps were published, so each run's training time (first "
      "nvidia-smi sample + 'training_duration_h') is split into equal epochs",
      measured.size()));
  report.notes.push_back(
      "measured = runs.csv energy_MJ (GPU only); every method is GPU-only "
      "(Green Algorithms without its RAM term)");
  std::vector<std::string> chosen;
  for (const StepOptions& o : cv.chosen) chosen.push_back(describe_step_setting(o));
  const StepGrid grid;
  report.notes.push_back(fmt::format(
      "STEP CV: grid s in {{{}}}, w in {{{}}}, rule fixed or online with CV <= {{{}}}; "
      "folds (seed {}) chose: {}; on all runs the rule picks {} ({:.2f} % in-sample)",
      fmt::join(grid.stable_epochs, ","), fmt::join(grid.windows, ","),
      fmt::join(std::vector<double>(grid.stability_cvs.begin() + 1, grid.stability_cvs.end()), ","),
      cv_seed, fmt::join(chosen, "; "), describe_step_setting(cv.chosen_on_all),
      cv.mape_on_all_percent));
  if (fallbacks > 0) report.notes.push_back(fmt::format("{} runs used a STEP fallback", fallbacks));
  return report;
}

Result<EvaluationReport> evaluate_pre(const std::string& runs_csv, double test_fraction,
                                      std::uint32_t seed, const RandomSearchOptions& search,
                                      const GpuSpecTable& specs) {
  if (!(test_fraction > 0.0 && test_fraction < 1.0)) {
    return invalid_input("PRE evaluation", "test fraction", fmt::format("{}", test_fraction),
                         "must be between 0 and 1");
  }
  JP_TRY(PreTable table, read_pre_runs_csv(runs_csv, specs));
  std::vector<std::size_t> order(table.runs.size());
  std::iota(order.begin(), order.end(), 0);
  std::mt19937 rng(seed);
  std::shuffle(order.begin(), order.end(), rng);
  const auto test_count =
      static_cast<std::size_t>(std::round(test_fraction * static_cast<double>(order.size())));
  std::vector<PreRun> train, test;
  for (std::size_t p = 0; p < order.size(); ++p) {
    (p < test_count ? test : train).push_back(table.runs[order[p]]);
  }
  EvaluationReport report;
  const std::string scope = fmt::format("{:.0f} % test split", 100.0 * test_fraction);
  std::vector<double> measured;
  for (const PreRun& r : test) measured.push_back(r.energy_j);
  for (PreTarget target : {PreTarget::kAveragePower, PreTarget::kEpochEnergy}) {
    PreOptions options;
    options.target = target;
    options.search = search;
    JP_TRY(PreModel model, train_pre(train, options));
    std::vector<double> krr, linear;
    for (const PreRun& r : test) {
      krr.push_back(pre_energy_j(model.predict_target(r.features), target, r.duration_s, r.epochs));
      linear.push_back(
          pre_energy_j(model.predict_linear_target(r.features), target, r.duration_s, r.epochs));
    }
    const std::string what = target == PreTarget::kAveragePower ? "power x T" : "epoch energy x N";
    report.scores.push_back(score(fmt::format("PRE KRR ({})", what), scope, krr, measured));
    report.scores.push_back(score(fmt::format("linear ({})", what), scope, linear, measured));
    report.notes.push_back(fmt::format("PRE {}: alpha = {:.3g}, gamma = {:.3g} (CV MAPE {:.2f} %)",
                                       to_string(target), model.search.alpha, model.search.gamma,
                                       model.search.cv_mape_percent));
  }
  JP_TRY(const UtilisationPowerModel utilisation, UtilisationPowerModel::fit(train));
  JP_TRY(const UtilisationKrrModel hybrid, UtilisationKrrModel::fit(train, search));
  std::vector<double> by_utilisation, by_hybrid;
  for (const PreRun& r : test) {
    by_utilisation.push_back(utilisation.predict_power_w(r) * r.duration_s);
    by_hybrid.push_back(hybrid.predict_power_w(r) * r.duration_s);
  }
  report.scores.push_back(score(kUtilisationMethod, scope, by_utilisation, measured));
  report.scores.push_back(score(kHybridMethod, scope, by_hybrid, measured));
  std::vector<double> ml_co2, green;
  for (const PreRun& r : test) {
    ml_co2.push_back(ml_co2_energy_j(r.features.gpu_tdp_w, r.duration_s));
    green.push_back(green_algorithms_energy_j(
        r.features.gpu_tdp_w, r.mean_gpu_utilisation.value_or(1.0), 0.0, r.duration_s));
  }
  report.scores.push_back(score("ML CO2 (TDP x T)", scope, ml_co2, measured));
  report.scores.push_back(score("Green Algorithms (GPU part)", scope, green, measured));
  report.notes.push_back(fmt::format(
      "{} runs, seed {}: {} train, {} test; search {} iterations x {}-fold CV", table.runs.size(),
      seed, train.size(), test.size(), search.iterations, search.folds));
  report.notes.push_back(
      "power x T uses each run's measured duration as the expected duration, "
      "epoch energy x N its trained epochs (what a user states before training)");
  for (const std::string& note : table.notes) report.notes.push_back(note);
  return report;
}

Result<EvaluationReport> evaluate_pre_by_architecture(const std::string& runs_csv,
                                                      const RandomSearchOptions& search,
                                                      const GpuSpecTable& specs) {
  JP_TRY(PreTable table, read_pre_runs_csv(runs_csv, specs));
  std::vector<std::string> architectures;
  for (const PreRun& run : table.runs) {
    if (run.architecture.empty()) {
      return invalid_input(runs_csv, "architecture", run.label,
                           "column missing or empty: runs cannot be grouped by architecture");
    }
    if (std::find(architectures.begin(), architectures.end(), run.architecture) ==
        architectures.end()) {
      architectures.push_back(run.architecture);
    }
  }
  std::sort(architectures.begin(), architectures.end());
  if (architectures.size() < 3) {
    return invalid_input(runs_csv, "architecture", fmt::format("{}", architectures.size()),
                         "leaving one out needs at least 3 architectures");
  }
  const std::vector<std::string> methods = {"PRE KRR (power x T)",
                                            "PRE KRR (epoch energy x N)",
                                            kUtilisationMethod,
                                            kHybridMethod,
                                            "utilisation model, one intercept",
                                            "GPU's mean power share (no FLOP/s)",
                                            "Green Algorithms (GPU part)"};
  std::vector<std::vector<double>> all_predicted(methods.size());
  std::vector<double> all_measured;
  std::size_t inside = 0;  // runs inside the utilisation model's 90 % interval
  std::vector<double> half_widths;
  EvaluationReport report;
  for (const std::string& held_out : architectures) {
    std::vector<PreRun> train, test;
    for (const PreRun& run : table.runs) {
      (run.architecture == held_out ? test : train).push_back(run);
    }
    PreOptions options;
    options.target = PreTarget::kAveragePower;
    options.search = search;
    JP_TRY(const PreModel krr, train_pre(train, options));
    options.target = PreTarget::kEpochEnergy;
    JP_TRY(const PreModel krr_epoch, train_pre(train, options));
    JP_TRY(const UtilisationPowerModel utilisation, UtilisationPowerModel::fit(train));
    JP_TRY(const UtilisationKrrModel hybrid, UtilisationKrrModel::fit(train, search));
    JP_TRY(const UtilisationPowerModel pooled, UtilisationPowerModel::fit(train, false));
    JP_TRY(const std::vector<double> residuals, unseen_architecture_residuals(train));
    const double half_width = predict::conformal_log_half_width(residuals, predict::kIntervalLevel);
    for (const PreRun& run : test) {
      inside +=
          std::abs(std::log(run.average_power_w / utilisation.predict_power_w(run))) <= half_width;
    }
    half_widths.push_back(half_width);
    std::map<std::string, std::pair<double, std::size_t>> share_by_gpu;
    for (const PreRun& run : train) {
      auto& [sum, n] = share_by_gpu[run.gpu.name];
      sum += run.average_power_w / run.features.gpu_tdp_w;
      ++n;
    }
    std::vector<std::vector<double>> predicted(methods.size());
    std::vector<double> measured;
    for (const PreRun& run : test) {
      const auto share = share_by_gpu.find(run.gpu.name);
      const double mean_share =
          share == share_by_gpu.end()
              ? 0.0
              : share->second.first / static_cast<double>(share->second.second);
      const double powers[] = {krr.predict_target(run.features),
                               krr_epoch.predict_target(run.features) * run.epochs / run.duration_s,
                               utilisation.predict_power_w(run),
                               hybrid.predict_power_w(run),
                               pooled.predict_power_w(run),
                               mean_share * run.features.gpu_tdp_w,
                               run.features.gpu_tdp_w * run.mean_gpu_utilisation.value_or(1.0)};
      for (std::size_t m = 0; m < methods.size(); ++m) {
        predicted[m].push_back(powers[m] * run.duration_s);
        all_predicted[m].push_back(powers[m] * run.duration_s);
      }
      measured.push_back(run.energy_j);
      all_measured.push_back(run.energy_j);
    }
    for (std::size_t m = 0; m < methods.size(); ++m) {
      report.scores.push_back(
          score(methods[m], fmt::format("without {}", held_out), predicted[m], measured));
    }
  }
  for (std::size_t m = 0; m < methods.size(); ++m) {
    report.scores.push_back(score(methods[m], kEachUnseenScope, all_predicted[m], all_measured));
  }
  report.interval_coverage_percent =
      100.0 * static_cast<double>(inside) / static_cast<double>(all_measured.size());
  std::vector<std::string> widths;
  for (double h : half_widths) widths.push_back(fmt::format("x{:.2f}", std::exp(h)));
  report.notes.push_back(fmt::format(
      "utilisation model's 90 % interval (width from leaving each training architecture out in "
      "turn: {} for {}) holds {:.1f} % of the unseen architectures' runs",
      fmt::join(widths, ", "), fmt::join(architectures, ", "), *report.interval_coverage_percent));
  // The floor: a run against the mean power of the other repeats of its configuration (the same
  // architecture on the same GPU, so the same features); no model of these features does better.
  double spread = 0.0;
  std::size_t spread_runs = 0;
  for (const PreRun& run : table.runs) {
    double sum = 0.0;
    std::size_t n = 0;
    for (const PreRun& other : table.runs) {
      if (&other == &run || other.architecture != run.architecture ||
          other.gpu.name != run.gpu.name) {
        continue;
      }
      sum += other.average_power_w;
      ++n;
    }
    if (n == 0) continue;
    spread += std::abs(sum / static_cast<double>(n) - run.average_power_w) / run.average_power_w;
    ++spread_runs;
  }
  report.notes.push_back(fmt::format(
      "floor: a run's average power against the mean of the other repeats of its (architecture, "
      "GPU) configuration differs by {:.2f} % on average ({} runs)",
      100.0 * spread / static_cast<double>(std::max<std::size_t>(spread_runs, 1)), spread_runs));
  report.notes.push_back(fmt::format(
      "{} runs, {} architectures; each column trains on the other architectures' runs (PRE KRR and "
      "the ratio ridge: search {} iterations x {}-fold CV, seed {})",
      table.runs.size(), architectures.size(), search.iterations, search.folds, search.seed));
  report.notes.push_back(
      "utilisation model: P / TDP = a_gpu + b ln(achieved FLOP/s / peak FP32), achieved FLOP/s = "
      "(3 x training + validation samples) x GFLOPs x epochs / duration; power x T, like PRE's "
      "power target, takes each run's measured duration as the expected one");
  for (const std::string& note : table.notes) report.notes.push_back(note);
  return report;
}

std::string format_report_by_scope(const EvaluationReport& report) {
  std::vector<std::string> methods, scopes;
  for (const MethodScore& s : report.scores) {
    if (std::find(methods.begin(), methods.end(), s.method) == methods.end()) {
      methods.push_back(s.method);
    }
    if (std::find(scopes.begin(), scopes.end(), s.scope) == scopes.end()) {
      scopes.push_back(s.scope);
    }
  }
  std::string out = fmt::format("| {:<36} |", "MAPE % / method");
  std::string rule = fmt::format("|{:-<38}|", "");
  for (const std::string& scope : scopes) {
    out += fmt::format(" {:>{}} |", scope, std::max<std::size_t>(scope.size(), 8));
    rule += fmt::format("{:->{}}|", "", std::max<std::size_t>(scope.size(), 8) + 2);
  }
  out += "\n" + rule + "\n";
  for (const std::string& method : methods) {
    out += fmt::format("| {:<36} |", method);
    for (const std::string& scope : scopes) {
      const MethodScore* s = report.find(method, scope);
      const std::size_t width = std::max<std::size_t>(scope.size(), 8);
      out += s == nullptr ? fmt::format(" {:>{}} |", "", width)
                          : fmt::format(" {:>{}.2f} |", s->mape_percent, width);
    }
    out += "\n";
  }
  for (const std::string& note : report.notes) out += fmt::format("\n- {}", note);
  out += "\n";
  return out;
}

std::string format_report(const EvaluationReport& report) {
  std::string out = fmt::format("| {:<44} | {:<20} | {:>4} | {:>8} | {:>9} |\n", "method", "scope",
                                "runs", "MAPE %", "RMSE MJ");
  out += fmt::format("|{:-<46}|{:-<22}|{:->6}|{:->10}|{:->11}|\n", "", "", "", "", "");
  for (const MethodScore& s : report.scores) {
    out += fmt::format("| {:<44} | {:<20} | {:>4} | {:>8.2f} | {:>9.4f} |\n", s.method, s.scope,
                       s.runs, s.mape_percent, s.rmse_mj);
  }
  for (const std::string& note : report.notes) out += fmt::format("\n- {}", note);
  out += "\n";
  return out;
}

}  // namespace jouleprof
