// jouleprof kernel-bench: samples kernels of DeepEn2023's types from a configuration space, builds
// each with libtorch and measures it with the gated protocol, writing the kernel CSV that
// train-predictor reads. The sampling and measuring live in src/predict/kernel_{space,bench}.cpp,
// the kernels in src/torch/kernel_calls.cpp; this file is the command line.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <iostream>

#include "command.hpp"
#include "command_progress.hpp"
#include "device_option.hpp"
#include "gated_flags.hpp"
#include "number_checks.hpp"
#include "predict/kernel_bench.hpp"
#include "predict/kernel_space.hpp"
#include "predict/kernel_type.hpp"
#include "source_flags.hpp"
#include "torch/kernel_calls.hpp"
#include "torch_commands.hpp"

namespace jouleprof::cli {
namespace {

using namespace jouleprof::predict;

struct KernelBenchArgs {
  std::vector<std::string> kernels;
  std::size_t samples = 20;
  std::uint64_t seed = 1;
  std::string space_file;
  bool show_space = false;
  std::string output = "kernels.csv";
  std::string energy = "total";
  torch_adapter::KernelCallOptions call;
  SourceFlags sources;
  std::unique_ptr<GatedFlags> gated;
  ProgressFlags progress;
};

// Each type draws from its own stream, so a type's kernels do not depend on which other types
// were asked for.
std::uint64_t type_seed(std::uint64_t seed, KernelType type) {
  const auto types = benchable_kernel_types();
  return seed * 1000003ULL +
         static_cast<std::uint64_t>(std::find(types.begin(), types.end(), type) - types.begin());
}

Result<std::vector<KernelConfig>> sample_all(const KernelBenchArgs& args,
                                             const std::map<std::string, KernelSpace>& spaces) {
  std::vector<KernelConfig> all;
  for (const std::string& type : args.kernels) {
    const std::optional<KernelType> known = kernel_type_from_string(type);
    auto space = spaces.find(type);
    if (!known || space == spaces.end()) {
      return invalid_input("--kernel", "kernel type", type,
                           fmt::format("kernel-bench measures {}", benchable_kernel_type_list()));
    }
    JP_TRY(auto kernels, sample_kernels(space->second, args.samples, type_seed(args.seed, *known)));
    all.insert(all.end(), kernels.begin(), kernels.end());
  }
  return all;
}

void write_csv_preamble(std::ostream& csv, const KernelBenchArgs& args, const GatedOptions& g) {
  csv << fmt::format(
      "# jouleprof {} kernel-bench: kernels={} samples={} seed={} device={} threads={} "
      "energy={} (mJ per call, sum of the top-level energy channels)\n",
      JOULEPROF_VERSION, fmt::join(args.kernels, "+"), args.samples, args.seed,
      to_string(args.call.device), args.call.threads, args.energy);
  csv << fmt::format(
      "# gated protocol: preset={} repetitions={} warmup={} interval_ms={} last_n={} tolerance={} "
      "check_period_s={} gate_timeout_s={} tail_wait_s={} min_updates={}\n",
      g.preset, g.repetitions, g.warmup_runs, ns_to_s(g.interval_ns) * 1e3, g.last_n, g.tolerance,
      ns_to_s(g.check_period_ns), ns_to_s(g.gate_timeout_ns), ns_to_s(g.tail_wait_ns),
      g.min_counter_updates);
  csv << kernel_csv_header() << '\n' << std::flush;
}

// Each kernel's outcome as it comes: a CSV row and a terminal line, or a failure listed at the end.
class KernelBenchLog {
 public:
  KernelBenchLog(std::ostream& csv, CommandProgress& progress, std::size_t repetitions,
                 std::size_t total)
      : csv_(csv), progress_(progress), repetitions_(repetitions), total_(total) {}

  void add(std::size_t i, const KernelOutcome& o) {
    progress_.clear();
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
    started_ = std::chrono::steady_clock::now();
    const std::string position = fmt::format("[{}/{}]", i + 1, total_);
    if (!o.energy) {
      failed_.push_back(fmt::format("{}: {}", o.config.name, o.failure));
      // After Ctrl-C only the kernel cut short gets a line: the others are listed at the end.
      if (progress_.interrupted() && stop_reported_) return;
      stop_reported_ = progress_.interrupted();
      std::cout << fmt::format("{:>9} {:<40} FAILED: {}\n", position, o.config.name, o.failure)
                << std::flush;
      return;
    }
    const KernelEnergy& e = *o.energy;
    if (first_provenance_.empty()) {
      first_provenance_ = e.provenance;
      if (e.provenance.rfind("measured:", 0) != 0) {
        std::cout << fmt::format(
            "NOT MEASURED: the energy comes from {} — every row is labelled so, and a "
            "predictor trained on it predicts that model, not this device\n",
            e.provenance);
      }
    }
    if (e.incomplete) {
      csv_ << fmt::format("# incomplete {}: {} of {} repetitions; {}\n", o.config.name,
                          e.repetitions, repetitions_, e.missing);
    }
    csv_ << kernel_csv_row(kernel_sample(o.config, e)) << '\n' << std::flush;
    std::cout << fmt::format(
                     "{:>9} {:<40} {:>10.4g} mJ ± {:<9.2g} {:>9.4g} ms/call  {} reps × {} calls  "
                     "{:.1f} s{}\n",
                     position, o.config.name, e.energy_mj, e.energy_stdev_mj, e.call_ms,
                     e.repetitions, e.calls_per_window, elapsed,
                     e.incomplete ? "  (incomplete: " + e.missing + ")" : "")
              << std::flush;
  }

  // The summary; false when a kernel is missing (listed here and at the end of the CSV).
  bool finish(const std::string& output) {
    for (const std::string& f : failed_) csv_ << "# missing " << f << '\n';
    std::cout << fmt::format("{} of {} kernels measured ({}), written to {}\n",
                             total_ - failed_.size(), total_,
                             first_provenance_.empty() ? "none" : first_provenance_, output);
    if (failed_.empty()) return true;
    std::cout << fmt::format("missing ({}), also listed at the end of the CSV:\n", failed_.size());
    for (const std::string& f : failed_) std::cout << "  " << f << '\n';
    return false;
  }

 private:
  std::ostream& csv_;
  CommandProgress& progress_;
  std::size_t repetitions_;
  std::size_t total_;
  std::vector<std::string> failed_;
  bool stop_reported_ = false;
  std::string first_provenance_;
  std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
};

int run_kernel_bench(KernelBenchArgs& args) {
  Result<std::map<std::string, KernelSpace>> spaces =
      args.space_file.empty() ? Result<std::map<std::string, KernelSpace>>(default_kernel_spaces())
                              : read_kernel_spaces(args.space_file);
  if (!spaces) return report_error(spaces.error());
  if (args.show_space) {
    std::cout << kernel_spaces_json(*spaces) << '\n';
    return kExitOk;
  }
  if (args.kernels.empty()) {
    return report_error(
        invalid_input("kernel-bench", "--kernel", "", "name at least one kernel type"));
  }
  const Result<std::vector<KernelConfig>> kernels = sample_all(args, *spaces);
  if (!kernels) return report_error(kernels.error());
  const Result<SourceOptions> sources = args.sources.to_options();
  if (!sources) return report_error(sources.error());
  KernelBenchOptions options;
  options.monitor.sources = *sources;
  options.gated = args.gated->options();
  options.figure = *kernel_energy_figure_from_string(args.energy);

  std::ofstream csv(args.output);
  if (!csv) return report_error(Error(ErrorCode::kIo, args.output + ": cannot open for writing"));
  const GatedOptions& g = options.gated;
  write_csv_preamble(csv, args, g);

  std::cout << fmt::format(
                   "kernel-bench: {} kernels ({} × {}), seed {}, device {}, energy = {} per call; "
                   "writing {}\n",
                   kernels->size(), args.samples, fmt::join(args.kernels, ", "), args.seed,
                   to_string(args.call.device), args.energy, args.output)
            << std::flush;
  CommandProgress progress(args.progress);
  const TimeNs period = expected_update_period_ns(options.monitor, g.interval_ns);
  const GatedEstimate estimate = estimate_gated(g, period);
  const TimeNs estimate_ns = static_cast<TimeNs>(kernels->size()) * estimate.total_ns;
  progress.print(estimate_text("kernel-bench", kernels->size(), "kernels", estimate, g, period));
  progress->begin("kernel-bench", kernels->size(), estimate_ns);
  KernelBenchLog log{csv, progress, g.repetitions, kernels->size()};
  const auto make_call = [&args](const KernelConfig& k) -> Result<MeasuredCall> {
    JP_TRY(torch_adapter::KernelCall call, torch_adapter::make_kernel_call(k, args.call));
    return call.run;
  };
  measure_kernels(
      *kernels, make_call, options,
      [&log](std::size_t i, const KernelOutcome& o) { log.add(i, o); }, progress.reporter());
  progress->end();
  progress.print(took_text("kernel-bench", progress->elapsed_ns(), estimate_ns));
  if (!log.finish(args.output)) return progress.interrupted() ? kExitInterrupted : kExitError;
  return kExitOk;
}

}  // namespace

CommandRunner add_kernel_bench_command(CLI::App& parent) {
  auto args = std::make_shared<KernelBenchArgs>();
  CLI::App* cmd = parent.add_subcommand(std::string(kKernelBenchCommand.name),
                                        std::string(kKernelBenchCommand.description));
  cmd->add_option(
         "--kernel", args->kernels,
         fmt::format("Kernel types to sample, comma-separated: {}", benchable_kernel_type_list()))
      ->delimiter(',')
      ->type_name("TYPE[,TYPE...]");
  cmd->add_option("--samples", args->samples,
                  fmt::format("Kernels sampled per type (at most {})", kMaxRepetitions))
      ->check(count_up_to(kMaxRepetitions))
      ->capture_default_str();
  cmd->add_option("--seed", args->seed, "Seed of the sampling, the weights and the inputs")
      ->capture_default_str();
  cmd->add_option("--space", args->space_file,
                  "JSON file overriding the configuration spaces (see --show-space for the format "
                  "and defaults)")
      ->check(CLI::ExistingFile);
  cmd->add_flag("--show-space", args->show_space,
                "Print the configuration spaces in use as JSON and exit");
  cmd->add_option("--output", args->output,
                  "Kernel CSV to write (rows are written as they are measured)")
      ->capture_default_str();
  cmd->add_option("--energy", args->energy,
                  "Energy per call: total (DeepEn2023: average power × latency) or net (above the "
                  "idle baseline)")
      ->check(CLI::IsMember({"total", "net"}))
      ->capture_default_str();
  add_device_option(*cmd, args->call.device, "Where the kernels run");
  cmd->add_option(
         "--threads", args->call.threads,
         fmt::format("libtorch intra-op threads (1: DeepEn2023's single-thread CPU setting and "
                     "steady figures on a shared machine; 0: libtorch's default; at most {})",
                     kMaxThreads))
      ->check(whole_number_in(0, kMaxThreads))
      ->capture_default_str();
  args->gated = std::make_unique<GatedFlags>(*cmd, kernel_gated_defaults());
  args->progress.add_to(*cmd);
  args->sources.add_to(*cmd);
  return [args] {
    args->call.seed = args->seed;
    return run_kernel_bench(*args);
  };
}

}  // namespace jouleprof::cli
