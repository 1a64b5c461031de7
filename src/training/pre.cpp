#include "training/pre.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "core/csv.hpp"
#include "core/figure_bounds.hpp"
#include "core/json_fields.hpp"
#include "core/json_file.hpp"
#include "core/line_reader.hpp"
#include "core/parse.hpp"
#include "predict/prediction_interval.hpp"
#include "sources/trace_text.hpp"

namespace jouleprof {

std::string_view to_string(PreTarget target) {
  return target == PreTarget::kAveragePower ? "power" : "epoch-energy";
}

std::optional<PreTarget> pre_target_from_string(std::string_view text) {
  if (text == "power") return PreTarget::kAveragePower;
  if (text == "epoch-energy") return PreTarget::kEpochEnergy;
  return std::nullopt;
}

FeatureRow pre_feature_row(const PreFeatures& f) {
  return {f.batch_size,   f.ram_gb,      f.training_size,  f.validation_size, f.gflops_per_sample,
          f.input_height, f.input_width, f.gpu_cuda_cores, f.gpu_memory_gb,   f.gpu_tdp_w};
}

void set_gpu(PreFeatures& features, const GpuSpec& spec) {
  features.gpu_cuda_cores = spec.cuda_cores;
  features.gpu_memory_gb = spec.memory_gb;
  features.gpu_tdp_w = spec.tdp_w;
}

namespace {

// More epochs than any training run has; also what an int holds without a question.
constexpr int kMaxEpochs = 1'000'000;

// Accepted column names per quantity: run_summaries.csv's first, then short names.
const std::map<std::string, std::vector<std::string>, std::less<>>& column_aliases() {
  static const std::map<std::string, std::vector<std::string>, std::less<>> kAliases = {
      {"batch_size", {"batch size", "batch_size"}},
      {"ram_gb", {"ram_gb"}},
      {"memory_mb", {"average memory used (MB)"}},
      {"training_size", {"training size", "training_size"}},
      {"validation_size", {"validation size", "validation_size"}},
      {"gflops", {"GFLOPs", "gflops"}},
      {"input_height", {"input_height"}},
      {"input_width", {"input_width"}},
      {"gpu", {"gpu model", "gpu_model", "gpu"}},
      {"duration_h", {"training duration (h)", "training_duration_h"}},
      {"duration_s", {"duration_s"}},
      {"epochs", {"trained epochs", "trained_epochs", "epochs"}},
      {"energy_mj", {"energy (MJ)", "energy_MJ"}},
      {"energy_j", {"energy_j"}},
      {"average_power_w", {"average power draw (W)", "average_power_w"}},
      {"gpu_usage_percent", {"gpu usage (%)"}},
      {"environment", {"training environment", "environment"}},
      {"architecture", {"architecture"}},
      {"run", {"run"}},
  };
  return kAliases;
}

}  // namespace

Result<PreTable> read_pre_runs_csv(const std::string& path, const GpuSpecTable& specs) {
  JP_TRY(LineReader lines, LineReader::open(path, "file"));
  PreTable table;
  std::map<std::string, std::size_t, std::less<>> column;
  std::vector<std::string> header_names;  // as the file spells them, for errors
  bool header = true;
  JP_RETURN_IF_ERROR(for_each_line(lines, [&](const TextLine& line) -> Status {
    if (trim_ascii_space(line.text).empty()) return Status::Ok();
    const auto fields = split_fields(line.text, ',');
    const std::string where = trace_text::where(path, line.number);
    if (header) {
      header = false;
      header_names.assign(fields.begin(), fields.end());
      for (const auto& [key, names] : column_aliases()) {
        for (const std::string& name : names) {
          const auto it = std::find(fields.begin(), fields.end(), name);
          if (it != fields.end() && !column.count(key)) {
            column[key] = static_cast<std::size_t>(it - fields.begin());
          }
        }
      }
      for (const char* required :
           {"batch_size", "training_size", "validation_size", "gflops", "gpu", "epochs"}) {
        if (!column.count(required)) {
          return invalid_input(where, "header", required,
                               fmt::format("column missing (accepted names: {})",
                                           fmt::join(column_aliases().at(required), ", ")));
        }
      }
      if (!column.count("ram_gb") && !column.count("memory_mb")) {
        table.notes.push_back("no RAM column (ram_gb or 'average memory used (MB)'): RAM GB = 0");
      }
      if (!column.count("duration_h") && !column.count("duration_s")) {
        return invalid_input(where, "header", "duration_s",
                             "column missing (or 'training duration (h)')");
      }
      if (!column.count("energy_mj") && !column.count("energy_j")) {
        return invalid_input(where, "header", "energy_j", "column missing (or 'energy (MJ)')");
      }
      if (column.count("memory_mb") && !column.count("ram_gb")) {
        table.notes.push_back(
            "RAM GB feature = 'average memory used (MB)' / 1024 (in seaa2023 "
            "this column holds the GPU memory in use)");
      }
      if (!column.count("input_height")) {
        table.notes.push_back(fmt::format(
            "no input-size columns: input height and width set to {} for every run (a constant "
            "feature carries no information)",
            kDefaultInputSide));
      }
      return Status::Ok();
    }
    const auto number = [&](std::string_view key) -> Result<double> {
      const std::size_t col = column.at(std::string(key));
      if (col >= fields.size()) {
        return invalid_input(where, column_aliases().at(std::string(key))[0], "", "missing field");
      }
      const auto v = to_number(fields[col]);
      if (!v || !std::isfinite(*v)) {
        return invalid_input(where, column_aliases().at(std::string(key))[0], fields[col],
                             "not a number");
      }
      return *v;
    };
    PreRun run;
    JP_TRY(run.features.batch_size, number("batch_size"));
    JP_TRY(run.features.training_size, number("training_size"));
    JP_TRY(run.features.validation_size, number("validation_size"));
    JP_TRY(run.features.gflops_per_sample, number("gflops"));
    if (column.count("ram_gb")) {
      JP_TRY(run.features.ram_gb, number("ram_gb"));
    } else if (column.count("memory_mb")) {
      JP_TRY(const double mb, number("memory_mb"));
      run.features.ram_gb = mb / 1024.0;
    }
    if (column.count("input_height")) {
      JP_TRY(run.features.input_height, number("input_height"));
    }
    if (column.count("input_width")) {
      JP_TRY(run.features.input_width, number("input_width"));
    }
    // Sizes and counts that cannot be negative (or, for most, zero) in a real run.
    const struct {
      const char* key;
      double value;
      bool zero_allowed;
    } kChecks[] = {{"batch_size", run.features.batch_size, false},
                   {"training_size", run.features.training_size, false},
                   {"validation_size", run.features.validation_size, true},
                   {"gflops", run.features.gflops_per_sample, false},
                   {"ram_gb", run.features.ram_gb, true},
                   {"input_height", run.features.input_height, false},
                   {"input_width", run.features.input_width, false}};
    for (const auto& check : kChecks) {
      if (check.value < 0.0 || (!check.zero_allowed && check.value == 0.0)) {
        // The column as the file names it (RAM may come from the MB column).
        const std::string_view key =
            column.count(check.key) == 0 && std::string_view(check.key) == "ram_gb" ? "memory_mb"
                                                                                    : check.key;
        const auto it = column.find(key);
        const bool named = it != column.end() && it->second < header_names.size();
        return invalid_input(where, named ? header_names[it->second] : std::string(check.key),
                             fmt::format("{}", check.value),
                             check.zero_allowed ? "must not be negative" : "must be positive");
      }
    }
    const std::size_t gpu_col = column.at("gpu");
    run.gpu_name = gpu_col < fields.size() ? std::string(fields[gpu_col]) : "";
    auto spec = specs.find(run.gpu_name);
    if (!spec) return spec.error().with_context(where);
    set_gpu(run.features, *spec);
    run.gpu = *spec;
    JP_TRY(const double epochs, number("epochs"));
    if (!(epochs >= 1 && epochs <= kMaxEpochs) || epochs != std::floor(epochs)) {
      return invalid_input(where, "epochs", fields[column.at("epochs")],
                           fmt::format("must be a whole number from 1 to {}", kMaxEpochs));
    }
    run.epochs = static_cast<int>(epochs);
    if (column.count("duration_s")) {
      JP_TRY(run.duration_s, number("duration_s"));
    } else {
      JP_TRY(const double hours, number("duration_h"));
      run.duration_s = hours * 3600.0;
    }
    if (column.count("energy_j")) {
      JP_TRY(run.energy_j, number("energy_j"));
    } else {
      JP_TRY(const double mj, number("energy_mj"));
      run.energy_j = mj * 1e6;
    }
    if (!(run.duration_s > 0.0) || !(run.energy_j > 0.0)) {
      return invalid_input(where, "duration/energy",
                           fmt::format("{}/{}", run.duration_s, run.energy_j),
                           "must both be positive");
    }
    // The input half of the plausibility gate: one run of 1e308 J made the cross-validated MAPE
    // a 300-digit number.
    JP_RETURN_IF_ERROR(check_figure(FigureKind::kEnergy, where, "energy_j", run.energy_j));
    JP_RETURN_IF_ERROR(check_figure(FigureKind::kDuration, where, "duration_s", run.duration_s));
    JP_RETURN_IF_ERROR(
        check_figure(FigureKind::kFlops, where, "gflops", run.features.gflops_per_sample));
    if (column.count("average_power_w")) {
      JP_TRY(run.average_power_w, number("average_power_w"));
      JP_RETURN_IF_ERROR(
          check_figure(FigureKind::kDevicePower, where, "average_power_w", run.average_power_w));
    } else {
      run.average_power_w = run.energy_j / run.duration_s;
      JP_RETURN_IF_ERROR(check_figure(FigureKind::kDevicePower, where, "energy_j / duration_s",
                                      run.average_power_w));
    }
    if (column.count("gpu_usage_percent")) {
      JP_TRY(const double percent, number("gpu_usage_percent"));
      run.mean_gpu_utilisation = percent / 100.0;
    }
    std::vector<std::string> label;
    for (const char* key : {"environment", "architecture", "run"}) {
      if (column.count(key) && column.at(key) < fields.size())
        label.emplace_back(fields[column.at(key)]);
    }
    if (column.count("architecture") && column.at("architecture") < fields.size()) {
      run.architecture = std::string(fields[column.at("architecture")]);
    }
    run.label = label.empty() ? where : fmt::format("{}", fmt::join(label, "/"));
    table.runs.push_back(std::move(run));
    return Status::Ok();
  }));
  if (table.runs.empty()) return invalid_input(path, "rows", "", "no runs in the table");
  return table;
}

double pre_target_value(const PreRun& run, PreTarget target) {
  return target == PreTarget::kAveragePower ? run.average_power_w
                                            : run.energy_j / static_cast<double>(run.epochs);
}

double pre_energy_j(double target_value, PreTarget target, double duration_s, int epochs) {
  return target == PreTarget::kAveragePower ? target_value * duration_s
                                            : target_value * static_cast<double>(epochs);
}

double PreModel::predict_target(const PreFeatures& features) const {
  return kernel_ridge.predict(scaler.apply(pre_feature_row(features)));
}

double PreModel::predict_linear_target(const PreFeatures& features) const {
  return linear.predict(scaler.apply(pre_feature_row(features)));
}

std::vector<std::string> PreModel::prediction_warnings(const PreFeatures& features) const {
  std::vector<std::string> warnings;
  const FeatureRow row = pre_feature_row(features);
  for (std::size_t j = 0; j < row.size() && j < scaler.constant.size(); ++j) {
    if (scaler.constant[j] && row[j] != scaler.mean[j]) {
      warnings.push_back(fmt::format(
          "feature {} was {} in every training run, so the model cannot tell what {} = {} does "
          "(it is left out of the prediction's basis)",
          kPreFeatureNames[j], scaler.mean[j], kPreFeatureNames[j], row[j]));
    }
  }
  const auto check = [&](double value, std::string_view what) {
    if (!std::isfinite(value) || value < 0.0) {
      warnings.push_back(fmt::format(
          "the {} predicts {}, which no run can use: these features lie outside what the "
          "training runs support",
          what, value));
    }
  };
  check(predict_target(features), "kernel ridge model");
  check(predict_linear_target(features), "linear baseline");
  return warnings;
}

Result<PreModel> train_pre(const std::vector<PreRun>& runs, const PreOptions& options,
                           ProgressReporter* progress) {
  const std::size_t min_runs = static_cast<std::size_t>(std::max(2, options.search.folds));
  if (runs.size() < min_runs) {
    return invalid_input("PRE training", "runs", std::to_string(runs.size()),
                         fmt::format("need at least {} runs for {}-fold cross-validation", min_runs,
                                     options.search.folds));
  }
  std::vector<FeatureRow> x;
  std::vector<double> y;
  for (const PreRun& run : runs) {
    x.push_back(pre_feature_row(run.features));
    y.push_back(pre_target_value(run, options.target));
  }
  PreModel model;
  model.target = options.target;
  model.search_options = options.search;
  model.search = random_search_cv(x, y, options.search, progress);
  // The file records the draws made: fewer than asked when the search was stopped.
  model.search_options.iterations = model.search.iterations;
  model.scaler = FeatureScaler::fit(x);
  std::vector<FeatureRow> scaled;
  for (const FeatureRow& r : x) scaled.push_back(model.scaler.apply(r));
  model.kernel_ridge = KernelRidge::fit(scaled, y, model.search.alpha, model.search.gamma);
  model.linear = LinearModel::fit(scaled, y);
  model.training_runs = runs.size();
  if (options.target == PreTarget::kAveragePower) {
    // Optional: without it the model is PRE's as published, and predict says none is there.
    if (auto utilisation = UtilisationPowerModel::fit(runs)) {
      model.utilisation = *utilisation;
      auto residuals = unseen_architecture_residuals(runs);
      if (residuals && !residuals->empty()) {
        model.utilisation->log_half_width =
            predict::conformal_log_half_width(*residuals, predict::kIntervalLevel);
      }
    }
  }
  return model;
}

Status save_pre_model(const PreModel& model, const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec)
    return Error(ErrorCode::kIo,
                 fmt::format("{}: cannot create the directory: {}", dir, ec.message()));
  nlohmann::json j;
  j["format"] = "jouleprof-pre-model";
  j["version"] = 1;
  j["target"] = std::string(to_string(model.target));
  j["features"] = std::vector<std::string>(kPreFeatureNames.begin(), kPreFeatureNames.end());
  j["scaler"] = {{"mean", model.scaler.mean},
                 {"stdev", model.scaler.stdev},
                 {"constant", model.scaler.constant}};
  j["kernel_ridge"] = {{"kernel", "rbf"},
                       {"alpha", model.kernel_ridge.alpha},
                       {"gamma", model.kernel_ridge.gamma},
                       {"y_mean", model.kernel_ridge.y_mean},
                       {"x_scaled", model.kernel_ridge.x},
                       {"dual_coef", model.kernel_ridge.dual}};
  j["linear_baseline"] = {{"intercept", model.linear.intercept}, {"weights", model.linear.weights}};
  j["search"] = {{"iterations", model.search_options.iterations},
                 {"folds", model.search_options.folds},
                 {"seed", model.search_options.seed},
                 {"alpha_range", {model.search_options.alpha_min, model.search_options.alpha_max}},
                 {"gamma_range", {model.search_options.gamma_min, model.search_options.gamma_max}},
                 {"cv_mape_percent", model.search.cv_mape_percent}};
  if (model.utilisation) {
    j["utilisation_model"] = {
        {"rule", "P / TDP = a_gpu + slope ln(achieved FLOP/s / peak FP32 FLOP/s)"},
        {"slope", model.utilisation->slope},
        {"pooled_intercept", model.utilisation->pooled_intercept},
        {"intercepts", model.utilisation->intercepts}};
    if (model.utilisation->log_half_width) {
      j["utilisation_model"]["log_half_width_90"] = *model.utilisation->log_half_width;
    }
  }
  j["training_runs"] = model.training_runs;
  j["gpu_specs"] = model.gpu_specs_origin;
  const std::string path = (std::filesystem::path(dir) / "pre_model.json").string();
  std::ofstream out(path);
  out << j.dump(1) << '\n';
  if (!out) return Error(ErrorCode::kIo, fmt::format("{}: write failed", path));
  return Status::Ok();
}

Result<PreModel> load_pre_model(const std::string& dir) {
  using nlohmann::json;
  const std::string path = (std::filesystem::path(dir) / "pre_model.json").string();
  JP_TRY(const json j, read_json_file(path, "PRE model"));
  const JsonFields f(path);
  JP_TRY(const std::string format, f.get<std::string>(j, "format", ""));
  if (format != "jouleprof-pre-model") {
    return f.error("format", fmt::format("is '{}', not \"jouleprof-pre-model\"", format));
  }
  JP_RETURN_IF_ERROR(f.get<int>(
      j, "version", "", [](int v) { return v == 1; },
      "is not 1, the PRE model version this jouleprof reads"));
  PreModel m;
  JP_TRY(m.target,
         f.named<PreTarget>(j, "target", "", pre_target_from_string, "power, epoch-energy"));
  JP_TRY(const json* features, f.member(j, "features", ""));
  JP_TRY(const std::vector<std::string> names,
         f.value<std::vector<std::string>>(*features, "features"));
  if (names != std::vector<std::string>(kPreFeatureNames.begin(), kPreFeatureNames.end())) {
    return f.bad_value("features", *features, "is not the feature list of this jouleprof");
  }
  JP_TRY(const json* scaler, f.object(j, "scaler", ""));
  JP_TRY(m.scaler.mean, f.get<std::vector<double>>(*scaler, "mean", "scaler"));
  JP_TRY(m.scaler.stdev, f.get<std::vector<double>>(*scaler, "stdev", "scaler"));
  JP_TRY(m.scaler.constant, f.get_or<std::vector<bool>>(*scaler, "constant", "scaler",
                                                        std::vector<bool>(m.scaler.stdev.size())));
  JP_TRY(const json* krr, f.object(j, "kernel_ridge", ""));
  JP_TRY(m.kernel_ridge.alpha, f.get<double>(*krr, "alpha", "kernel_ridge"));
  JP_TRY(m.kernel_ridge.gamma, f.get<double>(*krr, "gamma", "kernel_ridge"));
  JP_TRY(m.kernel_ridge.y_mean, f.get<double>(*krr, "y_mean", "kernel_ridge"));
  JP_TRY(m.kernel_ridge.x, f.get<std::vector<FeatureRow>>(*krr, "x_scaled", "kernel_ridge"));
  JP_TRY(m.kernel_ridge.dual, f.get<std::vector<double>>(*krr, "dual_coef", "kernel_ridge"));
  JP_TRY(const json* linear, f.object(j, "linear_baseline", ""));
  JP_TRY(m.linear.intercept, f.get<double>(*linear, "intercept", "linear_baseline"));
  JP_TRY(m.linear.weights, f.get<std::vector<double>>(*linear, "weights", "linear_baseline"));
  JP_TRY(const json* search, f.object(j, "search", ""));
  JP_TRY(m.search_options.iterations, f.get<int>(*search, "iterations", "search"));
  JP_TRY(m.search_options.folds, f.get<int>(*search, "folds", "search"));
  JP_TRY(m.search_options.seed, f.get<std::uint32_t>(*search, "seed", "search"));
  JP_TRY(const double cv_mape, f.get<double>(*search, "cv_mape_percent", "search"));
  m.search = RandomSearchResult{m.kernel_ridge.alpha, m.kernel_ridge.gamma, cv_mape,
                                m.search_options.iterations};
  if (j.contains("utilisation_model")) {
    JP_TRY(const json* u, f.object(j, "utilisation_model", ""));
    UtilisationPowerModel utilisation;
    JP_TRY(utilisation.slope, f.get<double>(*u, "slope", "utilisation_model"));
    JP_TRY(utilisation.pooled_intercept,
           f.get<double>(*u, "pooled_intercept", "utilisation_model"));
    JP_TRY(utilisation.intercepts,
           (f.get<std::map<std::string, double>>(*u, "intercepts", "utilisation_model")));
    if (u->contains("log_half_width_90")) {
      JP_TRY(utilisation.log_half_width,
             f.get<double>(
                 *u, "log_half_width_90", "utilisation_model",
                 [](double v) { return std::isfinite(v) && v >= 0.0 && v < 50.0; },
                 "is not a half-width from 0 to 50 (in ln)"));
    }
    m.utilisation = utilisation;
  }
  JP_TRY(m.training_runs, f.get<std::size_t>(j, "training_runs", ""));
  JP_TRY(m.gpu_specs_origin, f.get_or<std::string>(j, "gpu_specs", "", ""));
  const std::size_t d = kPreFeatureNames.size();
  for (std::size_t i = 0; i < m.scaler.stdev.size(); ++i) {
    const double v = m.scaler.stdev[i];
    if (!std::isfinite(v) || !(v > 0.0)) {
      return f.error(fmt::format("scaler.stdev[{}]", i), fmt::format("is not positive ({})", v));
    }
  }
  if (m.scaler.mean.size() != d || m.scaler.stdev.size() != d || m.linear.weights.size() != d ||
      m.scaler.constant.size() != d || m.kernel_ridge.x.size() != m.kernel_ridge.dual.size()) {
    return f.error("kernel_ridge", "holds arrays whose sizes do not match the feature count");
  }
  for (std::size_t i = 0; i < m.kernel_ridge.x.size(); ++i) {
    if (m.kernel_ridge.x[i].size() != d) {
      return f.error(fmt::format("kernel_ridge.x_scaled[{}]", i),
                     "holds a row whose size differs from the feature count");
    }
  }
  return m;
}

}  // namespace jouleprof
