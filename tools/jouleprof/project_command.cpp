// jouleprof project: STEP and the baselines for one logged training run.
#include <fmt/format.h>

#include <iostream>
#include <nlohmann/json.hpp>

#include "command.hpp"
#include "core/quantity_text.hpp"
#include "enum_option.hpp"
#include "flag_names.hpp"
#include "number_checks.hpp"
#include "output_format.hpp"
#include "training/run_projection.hpp"

namespace jouleprof::cli {
namespace {

struct ProjectArgs {
  ProjectRequest request;
  OutputFormat format = OutputFormat::kTable;
  std::string gpu_specs;
  double duration_s = 0.0;
  std::string epochs_csv, memory_log, gpu;
  double gflops = 0.0, samples = 0.0;
};

int print(const RunProjectionReport& report, OutputFormat format) {
  if (format == OutputFormat::kJson) {
    nlohmann::json j;
    j["trace"] = report.trace_path;
    j["epochs"] = {{"count", report.epochs.size()},
                   {"origin", std::string(to_string(report.epochs.origin))},
                   {"note", report.epochs.note},
                   {"energy_j", report.epoch_energies_j}};
    j["measured_j"] = report.measured_j;
    j["channels"] = report.channels;
    for (const MethodEstimate& e : report.estimates) {
      nlohmann::json m = {
          {"method", e.method},
          {"energy_j", e.energy_j},
          {"detail", e.detail},
          {"provenance", e.method.starts_with("STEP") ? "estimated (projected from measured epochs)"
                                                      : "estimated"}};
      if (e.band_low_j) m["band_j"] = {*e.band_low_j, *e.band_high_j};
      j["estimates"].push_back(m);
    }
    j["warnings"] = nlohmann::json::array();
    for (const std::string& w : report.warnings) j["warnings"].push_back(with_flag_names(w));
    std::cout << j.dump(2) << '\n';
    return kExitOk;
  }
  // The measured figure sets the table's unit, so that every estimate compares with it digit by
  // digit.
  const SiPrefix unit = si_prefix_of(report.measured_j);
  std::cout << fmt::format("trace: {}\nepochs: {} ({}: {})\nmeasured over the trace window: {}\n",
                           report.trace_path, report.epochs.size(), to_string(report.epochs.origin),
                           report.epochs.note, format_energy(report.measured_j));
  for (const std::string& c : report.channels) std::cout << "  from " << c << '\n';
  std::cout << fmt::format("\n{:<20} {:>10} {:>23} {:>12}  {}\n", "method",
                           fmt::format("energy {}J", unit.symbol),
                           fmt::format("95 % band {}J", unit.symbol), "vs measured", "how");
  for (const MethodEstimate& e : report.estimates) {
    const std::string band = e.band_low_j ? fmt::format("{} – {}", format_in(*e.band_low_j, unit),
                                                        format_in(*e.band_high_j, unit))
                                          : "";
    const double change_percent = 100.0 * (e.energy_j / report.measured_j - 1.0);
    std::cout << fmt::format(
        "{:<20} {:>10} {:>23} {:>12}  {}\n", e.method, format_in(e.energy_j, unit), band,
        plausible(FigureKind::kPercent, change_percent) ? fmt::format("{:+.2f}%", change_percent)
                                                        : "invalid",
        e.detail);
  }
  if (!report.warnings.empty()) {
    std::cout << "\nwarnings:\n";
    for (const std::string& w : report.warnings) std::cout << "  - " << with_flag_names(w) << '\n';
  }
  return kExitOk;
}

}  // namespace

CommandRunner add_project_command(CLI::App& parent) {
  auto args = std::make_shared<ProjectArgs>();
  CLI::App* cmd = parent.add_subcommand(
      "project",
      "Project the energy of a whole training run with STEP (del Rey et al.) from a logged trace, "
      "beside ML CO2, Green Algorithms, first-epoch and FLOPs-linear estimates");
  cmd->add_option("--trace", args->request.trace_path,
                  "Energy trace of the run: nvidia-smi CSV log, perf stat -I output, meter CSV, or "
                  "jouleprof's own profile.json or samples.csv (epochs from the run's "
                  "epoch_begin/epoch_end marks; a samples.csv takes them from the profile beside "
                  "it)")
      ->required()
      ->check(CLI::ExistingFile);
  add_enum_option<PowerLogFormat>(*cmd, "--trace-format", args->request.trace_format,
                                  {{"auto", PowerLogFormat::kAuto},
                                   {"nvidia-smi", PowerLogFormat::kNvidiaSmi},
                                   {"perf-stat", PowerLogFormat::kPerfStat},
                                   {"meter-csv", PowerLogFormat::kMeterCsv}},
                                  "auto, nvidia-smi, perf-stat or meter-csv");
  cmd->add_option("--epochs", args->request.epochs,
                  fmt::format("Total number of epochs N of the run (at most {})", kMaxEpochs))
      ->required()
      ->check(count_up_to(kMaxEpochs));
  cmd->add_option("--duration", args->duration_s,
                  "Training duration in seconds from the trace's first sample (default: the "
                  "whole trace; at most 100 years)")
      ->check(kDurationSeconds);
  cmd->add_option("--epochs-csv", args->epochs_csv,
                  "CSV 'epoch,end_s' of epoch end times (s after the first sample), epochs "
                  "numbered from 1 (or from 0); default: the trace's epoch marks (jouleprof's own "
                  "files), else an equal split of the training time, stated in the output")
      ->check(CLI::ExistingFile);
  cmd->add_option("--s", args->request.step.stable_epoch,
                  fmt::format("STEP s: epochs 1 … s are summed as measured, the window "
                              "starts at epoch s + 1 (at most {})",
                              kMaxEpochs))
      ->default_val(10)
      ->check(whole_number_in(0, kMaxEpochs));
  cmd->add_option("--w", args->request.step.window,
                  fmt::format("STEP window w: epochs s + 1 … s + w, whose mean is "
                              "extrapolated (at most {})",
                              kMaxEpochs))
      ->default_val(5)
      ->check(count_up_to(kMaxEpochs));
  cmd->add_flag("--online-stability", args->request.step.online_stability,
                "Choose s online: the smallest s whose window and the w epochs before it each "
                "vary by at most --stability-cv, and agree within it (instead of a fixed s)");
  cmd->add_option("--stability-cv", args->request.step.stability_cv,
                  "Largest coefficient of variation of a stable window")
      ->default_val(0.05)
      ->check(kNonNegativeNumber);
  cmd->add_option("--memory-log", args->memory_log,
                  "Process log with 'memory usage (MB)' to add modelled RAM power")
      ->check(CLI::ExistingFile);
  cmd->add_option("--ram-w-per-gb", args->request.ram_watts_per_gb,
                  "RAM power model, watts per GB resident")
      ->default_val(0.375)
      ->check(figure_of(FigureKind::kPowerPerGigabyte, true));
  cmd->add_option("--gpu", args->gpu, "GPU name for the baselines (default: the trace's)");
  cmd->add_option("--gpu-specs", args->gpu_specs,
                  "CSV name,cuda_cores,memory_gb,tdp_w,fp32_tflops adding to the built-in table")
      ->check(CLI::ExistingFile);
  cmd->add_option("--gflops", args->gflops, "Forward GFLOPs per sample (FLOPs-linear baseline)")
      ->check(figure_of(FigureKind::kFlops));
  cmd->add_option("--samples", args->samples, "Training samples per epoch (FLOPs-linear baseline)")
      ->check(kPositiveNumber);
  cmd->add_option("--utc-offset", args->request.utc_offset_s,
                  "Seconds east of UTC of the trace's wall-clock stamps")
      ->default_val(0)
      ->check(number_in(-14 * 3600, 14 * 3600));
  add_format_option(*cmd, args->format, {OutputFormat::kTable, OutputFormat::kJson},
                    "table (in the unit that suits the measured energy: J, kJ, MJ, GJ) or json "
                    "(joules)");
  return [args, cmd] {
    ProjectRequest& r = args->request;
    if (cmd->count("--duration") > 0) r.duration_s = args->duration_s;
    if (!args->epochs_csv.empty()) r.epochs_csv = args->epochs_csv;
    if (!args->memory_log.empty()) r.memory_log = args->memory_log;
    if (!args->gpu.empty()) r.gpu_name = args->gpu;
    if (cmd->count("--gflops") > 0) r.forward_gflops = args->gflops;
    if (cmd->count("--samples") > 0) r.samples_per_epoch = args->samples;
    const Result<GpuSpecTable> specs = GpuSpecTable::built_in_with(args->gpu_specs);
    if (!specs) return report_error(specs.error());
    const auto report = project_logged_run(r, *specs);
    if (!report) return report_error(report.error());
    return print(*report, args->format);
  };
}

}  // namespace jouleprof::cli
