// jouleprof estimate train|predict: PRE, the pre-training energy regression (del Rey et al.).
#include <fmt/format.h>

#include <iostream>
#include <nlohmann/json.hpp>

#include "command.hpp"
#include "command_progress.hpp"
#include "core/quantity_text.hpp"
#include "number_checks.hpp"
#include "output_format.hpp"
#include "training/pre.hpp"

namespace jouleprof::cli {
namespace {

struct EstimateArgs {
  std::string data, output, target = "epoch-energy", model, gpu, gpu_specs;
  OutputFormat format = OutputFormat::kTable;
  RandomSearchOptions search;
  PreFeatures features;
  int epochs = 0;
  double duration_s = 0.0;
  ProgressFlags progress;
};

int run_train(const EstimateArgs& args) {
  auto specs = GpuSpecTable::built_in_with(args.gpu_specs);
  if (!specs) return report_error(specs.error());
  auto table = read_pre_runs_csv(args.data, *specs);
  if (!table) return report_error(table.error());
  PreOptions options;
  options.target = *pre_target_from_string(args.target);
  options.search = args.search;
  CommandProgress progress(args.progress);
  // No estimate up front: a draw's cost depends on the runs' count (kernel ridge is cubic in it);
  // the ETA comes from the draws done.
  progress.print(fmt::format(
      "estimate train: {} random-search draws × {}-fold CV on {} runs; stop with Ctrl-C to keep "
      "the best so far",
      args.search.iterations, args.search.folds, table->runs.size()));
  progress->begin("estimate train", static_cast<std::size_t>(args.search.iterations), 0);
  auto model = train_pre(table->runs, options, progress.reporter());
  progress->end();
  if (!model) return report_error(model.error());
  model->gpu_specs_origin = specs->origin();
  if (Status st = save_pre_model(*model, args.output); !st) return report_error(st.error());
  std::cout << fmt::format(
      "PRE model ({} target) trained on {} runs from {}\n"
      "kernel ridge, RBF kernel: alpha = {:.4g}, gamma = {:.4g} ({} random-search iterations, "
      "{}-fold CV, seed {}: CV MAPE {})\nwritten to {}/pre_model.json\n",
      to_string(model->target), model->training_runs, args.data, model->search.alpha,
      model->search.gamma, model->search.iterations, args.search.folds, args.search.seed,
      format_share(model->search.cv_mape_percent / 100.0), args.output);
  for (const std::string& note : table->notes) std::cout << "note: " << note << '\n';
  if (progress.interrupted()) {
    std::cout << fmt::format(
        "stopped after {} of {} random-search draws: the best so far is kept\n",
        model->search.iterations, args.search.iterations);
    return kExitInterrupted;
  }
  return kExitOk;
}

int run_predict(const EstimateArgs& args, const CLI::App* cmd) {
  PreEstimateRequest request;
  request.model_dir = args.model;
  request.gpu = args.gpu;
  request.gpu_specs_path = args.gpu_specs;
  request.features = args.features;
  if (cmd->count("--duration") > 0) request.duration_s = args.duration_s;
  if (cmd->count("--epochs") > 0) request.epochs = args.epochs;
  const Result<PreEstimate> e = estimate_training_energy(request);
  if (!e) return report_error(e.error());
  for (const std::string& w : e->warnings) std::cerr << "jouleprof: warning: " << w << '\n';
  if (args.format == OutputFormat::kJson) {
    nlohmann::json j = {{"provenance", "predicted"},
                        {"model", args.model},
                        {"target", std::string(to_string(e->target))},
                        {"prediction", e->prediction},
                        {"linear_baseline", e->linear_prediction},
                        {"unit", e->unit},
                        {"gpu", e->gpu}};
    if (e->energy_j) {
      j["energy_j"] = *e->energy_j;
      j["linear_energy_j"] = *e->linear_energy_j;
      j["energy_rule"] = e->energy_rule;
    }
    if (e->utilisation_power_w) {
      j["utilisation_model"] = {{"power_w", *e->utilisation_power_w},
                                {"energy_j", *e->utilisation_energy_j}};
      if (e->utilisation_low_j) {
        j["utilisation_model"]["energy_interval_90_j"] = {*e->utilisation_low_j,
                                                          *e->utilisation_high_j};
      }
    }
    if (!e->utilisation_note.empty()) j["utilisation_note"] = e->utilisation_note;
    std::cout << j.dump(2) << '\n';
    return kExitOk;
  }
  std::cout << fmt::format(
      "PRE prediction (predicted, {} target, GPU {}: {:.0f} CUDA cores, "
      "{:.0f} GB, TDP {:.0f} W)\n  kernel ridge: {}\n  linear baseline: {}\n",
      to_string(e->target), e->gpu, e->gpu_cuda_cores, e->gpu_memory_gb, e->gpu_tdp_w,
      format_si(e->prediction, e->unit), format_si(e->linear_prediction, e->unit));
  if (e->energy_j) {
    std::cout << fmt::format("  energy: {} ({}); linear baseline {}\n", format_energy(*e->energy_j),
                             e->energy_rule, format_energy(*e->linear_energy_j));
  } else {
    const bool power = e->target == PreTarget::kAveragePower;
    std::cout << fmt::format("  (pass {} for the energy)\n", power ? "--duration S" : "--epochs N");
  }
  if (e->utilisation_power_w) {
    // The figure for a model unlike the training runs' (docs/training.md, leave one architecture
    // out: 5.1 % against the kernel ridge's 12 %).
    std::cout << fmt::format(
        "  utilisation model (for an architecture unlike the training runs'): {}, energy {}{}\n",
        format_si(*e->utilisation_power_w, "W"), format_energy(*e->utilisation_energy_j),
        e->utilisation_low_j
            ? fmt::format(" (90 % interval {} – {})", format_energy(*e->utilisation_low_j),
                          format_energy(*e->utilisation_high_j))
            : std::string());
  }
  if (!e->utilisation_note.empty()) std::cout << "  note: " << e->utilisation_note << '\n';
  return kExitOk;
}

}  // namespace

CommandRunner add_estimate_command(CLI::App& parent) {
  auto args = std::make_shared<EstimateArgs>();
  CLI::App* cmd = parent.add_subcommand(
      "estimate", "Predict training energy before training with PRE (kernel ridge regression)");
  cmd->require_subcommand(1);

  CLI::App* train = cmd->add_subcommand("train", "Fit a PRE model on a table of finished runs");
  train
      ->add_option("--data", args->data,
                   "Runs CSV (seaa2023 run_summaries.csv columns, or batch_size, ram_gb, "
                   "training_size, validation_size, gflops, gpu, epochs, duration_s, energy_j)")
      ->required()
      ->check(CLI::ExistingFile);
  train
      ->add_option("--target", args->target,
                   "power (average W, × duration) or epoch-energy (J, × epochs)")
      ->default_val("epoch-energy")
      ->check(CLI::IsMember({"power", "epoch-energy"}));
  train->add_option("--output", args->output, "Directory for pre_model.json")->required();
  train->add_option("--seed", args->search.seed, "Random-search seed")->default_val(42);
  train
      ->add_option("--iterations", args->search.iterations,
                   fmt::format("Random-search (alpha, gamma) draws (at most {})", kMaxRepetitions))
      ->default_val(60)
      ->check(count_up_to(kMaxRepetitions));
  train->add_option("--folds", args->search.folds, "Cross-validation folds")
      ->default_val(5)
      ->check(CLI::Range(2, 100));
  train
      ->add_option("--gpu-specs", args->gpu_specs,
                   "CSV name,cuda_cores,memory_gb,tdp_w,fp32_tflops adding to the built-in table")
      ->check(CLI::ExistingFile);
  args->progress.add_to(*train);

  CLI::App* predict = cmd->add_subcommand("predict", "Predict a run's energy with a PRE model");
  predict->add_option("--model", args->model, "Directory holding pre_model.json")->required();
  predict->add_option("--batch", args->features.batch_size, "Batch size")
      ->required()
      ->check(kPositiveNumber);
  predict->add_option("--gflops", args->features.gflops_per_sample, "Forward GFLOPs per sample")
      ->required()
      ->check(figure_of(FigureKind::kFlops));
  predict->add_option("--gpu", args->gpu, "GPU name, e.g. 'RTX 3090'")->required();
  predict
      ->add_option("--ram-gb", args->features.ram_gb,
                   "Memory in use, GB (as in the training table)")
      ->required()
      ->check(kPositiveNumber);
  predict->add_option("--train-size", args->features.training_size, "Training-set size (samples)")
      ->required()
      ->check(kPositiveNumber);
  predict->add_option("--val-size", args->features.validation_size, "Validation-set size (samples)")
      ->required()
      ->check(kNonNegativeNumber);
  predict->add_option("--input-height", args->features.input_height, "Input height")
      ->default_val(kDefaultInputSide)
      ->check(kPositiveNumber);
  predict->add_option("--input-width", args->features.input_width, "Input width")
      ->default_val(kDefaultInputSide)
      ->check(kPositiveNumber);
  predict
      ->add_option(
          "--epochs", args->epochs,
          fmt::format("Epochs (energy for an epoch-energy model; with --duration, the utilisation "
                      "model's power for a power model; at most {})",
                      kMaxEpochs))
      ->check(count_up_to(kMaxEpochs));
  predict
      ->add_option("--duration", args->duration_s,
                   "Expected duration in seconds (energy for a power model; at most 100 years)")
      ->check(kDurationSeconds);
  predict
      ->add_option("--gpu-specs", args->gpu_specs,
                   "CSV name,cuda_cores,memory_gb,tdp_w,fp32_tflops adding to the built-in table")
      ->check(CLI::ExistingFile);
  add_format_option(*predict, args->format, {OutputFormat::kTable, OutputFormat::kJson},
                    "table or json");

  return [args, train, predict] {
    if (train->parsed()) return run_train(*args);
    if (predict->parsed()) return run_predict(*args, predict);
    return kExitUsage;
  };
}

}  // namespace jouleprof::cli
