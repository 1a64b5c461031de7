#include <fmt/format.h>

#include <cmath>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "command.hpp"
#include "number_checks.hpp"
#include "output_format.hpp"
#include "predict/kernel_training.hpp"

namespace jouleprof::cli {
namespace {

using namespace jouleprof::predict;

struct TrainPredictorArgs {
  std::vector<std::string> kernel_files;
  double split = 0.8;
  std::uint64_t seed = 42;
  std::string output;
  OutputFormat format = OutputFormat::kTable;
  std::string regressor = "random-forest";
  std::string target = "log";  // TrainOptions' default (kernel_training.hpp says why)
  int trees = ForestOptions{}.trees;
  int threads = 1;
};

nlohmann::json metrics_json(const AccuracyMetrics& m) {
  return {{"n", m.n},
          {"rmse_mj", m.rmse_mj},
          {"rmspe_pct", m.rmspe_pct},
          {"within_5_pct", m.within_5_pct},
          {"within_10_pct", m.within_10_pct},
          {"within_15_pct", m.within_15_pct}};
}

std::string target_note(const TrainOptions& options) {
  return options.regressor.target == TargetTransform::kLog
             ? "target log (ln mJ; the default: lower RMSPE on all four published sets)"
             : "target raw (mJ, the paper's)";
}

void print_table(const TrainingResult& result, const TrainOptions& options) {
  fmt::print("held-out accuracy ({:.0f} % train / {:.0f} % test, seed {}, {})\n",
             options.train_fraction * 100, (1 - options.train_fraction) * 100,
             options.regressor.seed, target_note(options));
  fmt::print("{:<16} {:<14} {:>7} {:>6} {:>10} {:>9} {:>7} {:>7} {:>7}\n", "kernel type",
             "regressor", "n_train", "n_test", "RMSE mJ", "RMSPE %", "±5 %", "±10 %", "±15 %");
  auto row = [](const TypeEvaluation& e, std::string_view name, const AccuracyMetrics& m) {
    fmt::print("{:<16} {:<14} {:>7} {:>6} {:>10.4g} {:>9.1f} {:>7.1f} {:>7.1f} {:>7.1f}\n", e.type,
               name, e.n_train, e.n_test, m.rmse_mj, m.rmspe_pct, m.within_5_pct, m.within_10_pct,
               m.within_15_pct);
  };
  for (const TypeEvaluation& e : result.evaluations) {
    row(e, "random-forest", e.forest);
    row(e, "boosting", e.boosting);
    if (e.flops_baseline) {
      row(e, "flops-linear", *e.flops_baseline);
    } else {
      fmt::print("{:<16} {:<14} (no FLOPs formula for this type)\n", e.type, "flops-linear");
    }
    if (e.log_linear) row(e, "log-linear", *e.log_linear);
    if (e.knn) row(e, fmt::format("knn (k={})", e.knn_k), *e.knn);
  }
  for (const TypeEvaluation& e : result.evaluations) {
    if (auto verdict = compare_with_baselines(e, options.bundle_regressor)) {
      fmt::print("{}\n", verdict->text);
    }
    if (e.interval && e.interval->held_out_coverage_pct >= 0.0) {
      fmt::print(
          "{}: {:.0f} % interval x{:.3g} / x{:.3g} of the prediction (from 5-fold CV residuals on "
          "the training part) holds {:.1f} % of the held-out kernels\n",
          e.type, 100.0 * e.interval->level, std::exp(-e.interval->log_half_width),
          std::exp(e.interval->log_half_width), e.interval->held_out_coverage_pct);
    }
  }
  for (const std::string& s : result.skipped) fmt::print("skipped: {} — too few samples\n", s);
}

void print_json(const TrainingResult& result, const TrainOptions& options,
                const std::string& output) {
  nlohmann::json types = nlohmann::json::array();
  for (const TypeEvaluation& e : result.evaluations) {
    nlohmann::json t = {{"type", e.type},
                        {"features", e.features},
                        {"n_train", e.n_train},
                        {"n_test", e.n_test},
                        {"random_forest", metrics_json(e.forest)},
                        {"boosting", metrics_json(e.boosting)}};
    t["flops_linear"] = e.flops_baseline ? metrics_json(*e.flops_baseline) : nlohmann::json();
    t["log_linear"] = e.log_linear ? metrics_json(*e.log_linear) : nlohmann::json();
    t["knn"] = e.knn ? metrics_json(*e.knn) : nlohmann::json();
    if (e.knn) t["knn"]["k"] = e.knn_k;
    if (e.interval) {
      t["interval"] = {{"level", e.interval->level},
                       {"log_half_width", e.interval->log_half_width},
                       {"held_out_coverage_pct", e.interval->held_out_coverage_pct}};
    }
    if (auto verdict = compare_with_baselines(e, options.bundle_regressor)) {
      t["against_baselines"] = {{"regressor", verdict->regressor},
                                {"best_baseline", verdict->best_baseline},
                                {"rmspe_reduction_pct", verdict->reduction_pct},
                                {"meets_margin", verdict->meets_margin},
                                {"margin_pct", kBaselineMarginPct},
                                {"text", verdict->text}};
    }
    types.push_back(std::move(t));
  }
  nlohmann::json doc = {{"train_fraction", options.train_fraction},
                        {"seed", options.regressor.seed},
                        {"target", to_string(options.regressor.target)},
                        {"kernel_types", types},
                        {"skipped", result.skipped}};
  doc["bundle"] = output.empty() ? nlohmann::json() : nlohmann::json(output);
  std::cout << doc.dump(2) << '\n';
}

}  // namespace

CommandRunner add_train_predictor_command(CLI::App& parent) {
  auto args = std::make_shared<TrainPredictorArgs>();
  CLI::App* cmd = parent.add_subcommand(
      "train-predictor",
      "Train per-kernel-type energy predictors (DeepEn2023) from measured kernels and print their "
      "held-out accuracy: random forest, gradient boosting and the simple baselines (FLOPs-linear, "
      "log-linear FLOPs/params, k nearest neighbours with k by CV) side by side, and whether the "
      "kept regressor beats the best baseline's RMSPE by 20 %");
  cmd->add_option("--kernels", args->kernel_files,
                  "Kernel data: nn-Meter JSON pairs (config file + energy file) and/or CSV files "
                  "id,OP,energy_mJ,HW,KERNEL_SIZE,STRIDES,CIN,COUT")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("--split", args->split,
                  "Fraction of each kernel type's samples used for training")
      ->check(number_in(0.0, 1.0))
      ->capture_default_str();
  cmd->add_option("--seed", args->seed, "Seed of the split and of the regressors")
      ->capture_default_str();
  cmd->add_option("--output", args->output, "Write the predictor bundle to this directory");
  add_format_option(*cmd, args->format, {OutputFormat::kTable, OutputFormat::kJson},
                    "Output format");
  cmd->add_option("--regressor", args->regressor, "Regressor kept in the bundle")
      ->check(CLI::IsMember({"random-forest", "boosting"}))
      ->capture_default_str();
  cmd->add_option(
         "--target", args->target,
         "Fit the logarithm of energy (log, the default: lower RMSPE on all four published "
         "sets) or energy itself (raw, the paper's choice)")
      ->check(CLI::IsMember({"raw", "log"}))
      ->capture_default_str();
  cmd->add_option("--trees", args->trees,
                  fmt::format("Trees in each random forest (at most {})", kMaxTrees))
      ->check(count_up_to(kMaxTrees))
      ->capture_default_str();
  cmd->add_option("--threads", args->threads,
                  fmt::format("XGBoost threads (at most {})", kMaxThreads))
      ->check(count_up_to(kMaxThreads))
      ->capture_default_str();
  return [args] {
    TrainOptions options;
    options.train_fraction = args->split;
    options.regressor.seed = args->seed;
    options.regressor.threads = args->threads;
    options.regressor.forest.trees = args->trees;
    options.regressor.target = *target_transform_from_string(args->target);
    options.bundle_regressor = *regressor_kind_from_string(args->regressor);
    std::vector<std::filesystem::path> files(args->kernel_files.begin(), args->kernel_files.end());
    auto samples = read_kernel_files(files);
    if (!samples) return report_error(samples.error());
    auto result = train_kernel_predictors(*samples, options);
    if (!result) return report_error(result.error());
    if (!args->output.empty()) {
      if (auto saved = save_bundle(result->bundle, args->output); !saved)
        return report_error(saved.error());
    }
    if (args->format == OutputFormat::kJson) {
      print_json(*result, options, args->output);
    } else {
      print_table(*result, options);
      if (!args->output.empty()) fmt::print("predictor bundle written to {}\n", args->output);
    }
    return kExitOk;
  };
}

}  // namespace jouleprof::cli
