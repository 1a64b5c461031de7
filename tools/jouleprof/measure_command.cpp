// jouleprof measure: gated fine-grained measurement (FECoM). This file holds the command line
// only; the protocol lives in src/protocol/.
#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>

#include "command.hpp"
#include "command_progress.hpp"
#include "core/quantity_text.hpp"
#include "core/rescue_directories.hpp"
#include "core/text_file.hpp"
#include "device_option.hpp"
#include "gated_flags.hpp"
#include "jouleprof/auto_window.hpp"
#include "jouleprof/child_process.hpp"
#include "jouleprof/fecom_records.hpp"
#include "jouleprof/gated_measurement.hpp"
#include "jouleprof/history.hpp"
#include "jouleprof/measurement_json.hpp"
#include "jouleprof/statistics.hpp"
#include "number_checks.hpp"
#include "output_format.hpp"
#ifdef JOULEPROF_HAVE_TORCH
#include "jouleprof/op_size_sweep.hpp"
#include "jouleprof/torch_ops.hpp"
#endif
#include "jouleprof/monitor.hpp"
#include "source_flags.hpp"

namespace jouleprof::cli {
namespace {

struct MeasureArgs {
  std::string fecom_records;
  OutputFormat format = OutputFormat::kTable;
  std::string output;
  std::string db;
  bool no_history = false;
  SourceFlags sources;
  std::unique_ptr<GatedFlags> gated;  // the standard preset unless flags say otherwise
  ProgressFlags progress;
  std::vector<std::string> command;
  std::string op;
  std::vector<std::int64_t> sizes;
  DeviceKind device = DeviceKind::kCpu;
  bool auto_window = false;
  AutoWindowOptions window;
  double window_max_cv_pct = 2.0;
};

void print_fecom_table(const FecomAnalysis& a) {
  std::cout << fmt::format(
      "FECoM records: {} experiments, energy recomputed by jouleprof's rules "
      "(measured: perf RAPL for cpu/ram, nvidia-smi power for gpu)\n",
      a.experiments);
  std::cout << "net = energy in the call's window − idle baseline (20 s before) × window; (n) = "
               "experiments with a window; < 1 sample = call shorter than one interval\n";
  std::cout << fmt::format("{:>3}  {:<48} {:>9}  {:>21} {:>21} {:>21}  {:>10}\n", "#", "api",
                           "time s", "cpu net J", "ram net J", "gpu net J", "gpu tail J");
  for (const FecomCallSummary& c : a.calls) {
    std::string api = c.api.size() > 48 ? "…" + c.api.substr(c.api.size() - 47) : c.api;
    std::cout << fmt::format("{:>3}  {:<48} {:>9.3f}", c.position, api, c.execution_s.mean);
    for (FecomDevice d : kFecomDevices) {
      const FecomDeviceSummary& s = c.devices[static_cast<int>(d)];
      if (s.net_j.n == 0) {
        std::cout << fmt::format("  {:>21}", "< 1 sample");
      } else {
        const std::string n = s.net_j.n < c.experiments ? fmt::format("({})", s.net_j.n) : "";
        std::cout << fmt::format("  {:>8.2f} ± {:<7.2f}{:>4}", s.net_j.mean, s.net_j.stdev, n);
      }
    }
    const FecomDeviceSummary& gpu = c.devices[static_cast<int>(FecomDevice::kGpu)];
    std::cout << fmt::format("  {:>10}\n",
                             gpu.tail_j.n ? fmt::format("{:.2f}", gpu.tail_j.mean) : "-");
  }
  for (const std::string& w : a.warnings) std::cout << "warning: " << w << '\n';
}

// profile.json and measure.json into --output, else (a directory that cannot be made or was
// replaced by a file) into the temporary or the working directory, with a warning naming it: the
// measurement is never lost to the file system. Returns the profile's path.
Result<std::string> keep_measurement(const GatedResult& r, const std::string& output) {
  namespace fs = std::filesystem;
  const auto write_into = [&](const fs::path& dir) -> Status {
    std::error_code ec;
    fs::create_directories(dir, ec);
    JP_RETURN_IF_ERROR(write_profile_json(r.profile, (dir / "profile.json").string()));
    return write_text_file((dir / "measure.json").string(), to_json(r) + "\n");
  };
  const Status asked = write_into(output);
  if (asked) return (fs::path(output) / "profile.json").string();
  for (const fs::path& rescue : rescue_directories(fmt::format("jouleprof-measure-{}", getpid()))) {
    if (write_into(rescue)) {
      std::cerr << "jouleprof: warning: " << asked.error().message()
                << "; the measurement was written to " << rescue.string() << " instead\n";
      return (rescue / "profile.json").string();
    }
  }
  return asked.error();
}

int run_fecom_records(const MeasureArgs& args) {
  const Result<FecomAnalysis> analysis = analyse_fecom_directory(args.fecom_records);
  if (!analysis) return report_error(analysis.error());
  if (args.format == OutputFormat::kJson) {
    std::cout << to_json(*analysis) << '\n';
  } else {
    print_fecom_table(*analysis);
  }
  return kExitOk;
}

// One call of the measured command: it must succeed, or the measurement stops.
MeasuredCall command_call(const std::vector<std::string>& argv) {
  return [argv]() -> Status {
    JP_TRY(ChildProcess child, ChildProcess::spawn(argv));
    JP_TRY(const ChildExit exit, child.wait());
    if (exit.exited && exit.code == 0) return Status::Ok();
    return Error(ErrorCode::kInterrupted, fmt::format("'{}' {}", argv.front(), exit.describe()));
  };
}

std::string stats_text(const RepetitionStats& s) {
  if (s.n == 0) return "-";
  return fmt::format("{:.4f} ± {:.4f} [{:.4f}, {:.4f}]", s.mean, s.stdev, s.ci95_low, s.ci95_high);
}

// "interval [0.0712, 0.0801] J, mostly repetition"
std::string band_text(const EnergyBand& b) {
  return fmt::format("interval [{:.4f}, {:.4f}] J, mostly {}", b.low_j, b.high_j,
                     to_string(b.dominant));
}

void print_gated_table(const GatedResult& r, const std::vector<std::string>& command) {
  std::string text;
  for (const std::string& a : command) text += (text.empty() ? "" : " ") + a;
  std::cout << fmt::format("jouleprof measure: {}\n", text);
  std::cout << fmt::format(
      "{} repetitions; each window at least {:.3f} s ({} updates of the slowest "
      "counter, {:.1f} ms); one call takes {:.3f} s\n",
      r.repetitions.size(), ns_to_s(r.min_window_ns),
      r.update_period_ns > 0 ? r.min_window_ns / r.update_period_ns : 0,
      ns_to_s(r.update_period_ns) * 1e3, ns_to_s(r.single_call_ns));
  for (std::size_t i = 0; i < r.repetitions.size(); ++i) {
    const GatedRepetition& rep = r.repetitions[i];
    std::cout << fmt::format(
        "  #{}: gate passed after {:.1f} s ({} checks), {} calls in {:.3f} s\n", i + 1,
        ns_to_s(rep.gate.waited_ns), rep.gate.checks, rep.calls, ns_to_s(rep.window_ns));
  }
  std::cout << "per call, mean ± stdev [Student-t 95 % CI] over repetitions; interval: 95 %, with "
               "the source's gain and the read delay (docs/uncertainty.md):\n";
  for (const GatedChannelSummary& c : r.summary) {
    const ChannelCall& first = r.repetitions.front().channels[&c - r.summary.data()];
    std::cout << fmt::format("  {} ({}, {})\n", c.channel_id, to_string(first.provenance),
                             first.provenance_detail);
    std::cout << fmt::format("    total     {} J  {}\n", stats_text(c.total_j),
                             band_text(c.total_band));
    std::cout << fmt::format("    net       {} J  {}  (baseline {:.3f} W)\n", stats_text(c.net_j),
                             band_text(c.net_band), first.baseline_power_w);
    std::cout << fmt::format("    tail      {} J\n", stats_text(c.tail_j));
    std::cout << fmt::format("    net+tail  {} J  {}\n", stats_text(c.net_plus_tail_j),
                             band_text(c.net_plus_tail_band));
  }
  if (r.incomplete) std::cout << "INCOMPLETE: " << r.missing << '\n';
  for (const std::string& w : r.warnings) std::cout << "warning: " << w << '\n';
}

// --auto-window: the window and cooldown sweep (auto_window.hpp) instead of the gated protocol.
int run_auto_window(MeasureArgs& args, const MeasuredCall& call, const std::string& what) {
  const Result<SourceOptions> sources = args.sources.to_options();
  if (!sources) return report_error(sources.error());
  MonitorOptions monitor_options;
  monitor_options.sources = *sources;
  const Result<std::unique_ptr<Monitor>> monitor = Monitor::open(monitor_options);
  if (!monitor) return report_error(monitor.error());
  args.window.max_cv = args.window_max_cv_pct / 100.0;
  CommandProgress progress(args.progress);
  progress.print(fmt::format(
      "measure --auto-window: {} trials per setting, the window doubling (up to {}) and the "
      "cooldown (up to {}) until the per-call energy spreads less than {:.1f} %",
      args.window.trials, format_duration(args.window.max_window_ns),
      format_duration(args.window.max_cooldown_ns), args.window_max_cv_pct));
  progress->begin("measure --auto-window", 0, 0);
  const Result<AutoWindowResult> r =
      find_stable_window(**monitor, call, args.window, progress.reporter());
  progress->end();
  if (!r) return report_error(r.error());
  if (args.format == OutputFormat::kJson) {
    std::cout << to_json(*r) << '\n';
  } else {
    std::cout << fmt::format("jouleprof measure --auto-window: {}\n", what);
    for (const AutoWindowSetting& s : r->sweep) {
      std::cout << fmt::format("  window {:>8}  cooldown {:>8}  {:.6g} J/call  spread {:.2f} %{}\n",
                               format_duration(s.window_ns), format_duration(s.cooldown_ns),
                               s.mean_j, 100.0 * s.cv, s.drifting ? "  (drifting)" : "");
    }
    std::cout << fmt::format(
        "{}: window {}, cooldown {}: {:.6g} J per call (total, {}), spread {:.2f} % across {} "
        "trials\n",
        r->stable ? "chosen" : "NOT STABLE, least spread", format_duration(r->window_ns),
        format_duration(r->cooldown_ns), r->energy_j_per_call, r->provenance, 100.0 * r->cv,
        args.window.trials);
    if (!r->stable) std::cout << "INCOMPLETE: " << r->missing << '\n';
  }
  if (progress.interrupted()) return kExitInterrupted;
  return r->stable ? kExitOk : kExitError;
}

int run_gated_command(MeasureArgs& args) {
  const Result<SourceOptions> sources = args.sources.to_options();
  if (!sources) return report_error(sources.error());
  MonitorOptions monitor_options;
  monitor_options.sources = *sources;
  const Result<std::unique_ptr<Monitor>> monitor = Monitor::open(monitor_options);
  if (!monitor) return report_error(monitor.error());
  const GatedOptions o = args.gated->options();
  CommandProgress progress(args.progress);
  const TimeNs period = slowest_nominal_period_ns((*monitor)->channels(), o.interval_ns);
  const GatedEstimate estimate = estimate_gated(o, period);
  progress.print(estimate_text("measure", 1, "", estimate, o, period));
  progress->begin("measure", 0, estimate.total_ns);
  Result<GatedResult> result =
      measure_gated(**monitor, command_call(args.command), o, progress.reporter());
  progress->end();
  if (!result) return report_error(result.error());
  GatedResult r = std::move(result).value();
  progress.print(took_text("measure", progress->elapsed_ns(), estimate.total_ns));
  r.profile.meta.command = args.command;
  if (!args.output.empty()) {
    const Result<std::string> profile_path = keep_measurement(r, args.output);
    if (!profile_path) return report_error(profile_path.error());
    if (!args.no_history) {
      const Result<std::string> db = history_path(args.db);
      const Result<std::int64_t> id =
          db ? record_run(*db, r.profile, *profile_path) : Result<std::int64_t>(db.error());
      if (!id) {
        std::cerr << "jouleprof: warning: measurement not recorded in the history: "
                  << id.error().message() << '\n';
      }
    }
  }
  if (args.format == OutputFormat::kJson) {
    std::cout << to_json(r) << '\n';
  } else {
    print_gated_table(r, args.command);
  }
  if (progress.interrupted()) return kExitInterrupted;
  return r.incomplete ? kExitError : kExitOk;
}

#ifdef JOULEPROF_HAVE_TORCH
// FECoM's RQ2 for libtorch APIs (sweep_op_sizes), its rows as each size is measured, its CSV.
int run_op_sizes(MeasureArgs& args) {
  if (args.auto_window) {
    int worst = kExitOk;
    for (const std::int64_t size : args.sizes) {
      const Result<torch_adapter::OpCall> call =
          torch_adapter::make_op_call(args.op, size, args.device);
      if (!call) return report_error(call.error());
      const int code = run_auto_window(args, call->run, fmt::format("{} size {}", args.op, size));
      if (code == kExitInterrupted) return code;
      worst = std::max(worst, code);
    }
    return worst;
  }
  torch_adapter::OpSizeSweepOptions sweep_options;
  sweep_options.op = args.op;
  sweep_options.sizes = args.sizes;
  sweep_options.device = args.device;
  const Result<SourceOptions> sources = args.sources.to_options();
  if (!sources) return report_error(sources.error());
  sweep_options.monitor.sources = *sources;
  sweep_options.gated = args.gated->options();
  const GatedOptions& o = sweep_options.gated;

  std::ofstream csv;
  if (!args.output.empty()) {
    csv.open(args.output);
    if (!csv) return report_error(Error(ErrorCode::kIo, args.output + ": cannot open for writing"));
    csv << "op,size,input_elements,device,channel,provenance,repetitions,calls_per_window,"
           "call_s,total_j,net_j,net_stdev_j,tail_j,net_plus_tail_j,preset\n";
  }
  CommandProgress progress(args.progress);
  const TimeNs period = expected_update_period_ns(sweep_options.monitor, o.interval_ns);
  const GatedEstimate estimate = estimate_gated(o, period);
  progress.print(
      estimate_text("measure " + args.op, args.sizes.size(), "sizes", estimate, o, period));
  progress->begin("measure " + args.op, args.sizes.size(),
                  static_cast<TimeNs>(args.sizes.size()) * estimate.total_ns);
  std::cout << fmt::format("{:<12} {:>8} {:>14} {:>10} {:>12} {:>12} {:>12}  {}\n", "op", "size",
                           "input elems", "call ms", "net J/call", "± stdev", "tail J", "channel");
  // Each size's rows as soon as it is measured: a sweep runs for minutes.
  const auto print_point = [&](const torch_adapter::OpSizePoint& p) {
    progress.clear();
    for (const torch_adapter::OpSizeChannel& c : p.channels) {
      const GatedChannelSummary& s = c.summary;
      std::cout << fmt::format(
                       "{:<12} {:>8} {:>14.0f} {:>10.4f} {:>12.6f} {:>12.6f} {:>12.6f}  {} ({})\n",
                       args.op, p.size, p.input_elements, p.call_s * 1e3, s.net_j.mean,
                       s.net_j.stdev, s.tail_j.mean, s.channel_id, to_string(c.provenance))
                << std::flush;
      if (csv) {
        csv << fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},\"{}\"\n", args.op, p.size,
                           p.input_elements, to_string(args.device), s.channel_id,
                           to_string(c.provenance), s.net_j.n, p.calls_per_window, p.call_s,
                           s.total_j.mean, s.net_j.mean, s.net_j.stdev, s.tail_j.mean,
                           s.net_plus_tail_j.mean, o.preset)
            << std::flush;
      }
    }
  };
  const Result<torch_adapter::OpSizeSweep> sweep =
      torch_adapter::sweep_op_sizes(sweep_options, progress.reporter(), print_point);
  progress->end();
  if (!sweep) return report_error(sweep.error());
  progress.print(took_text("measure " + args.op, progress->elapsed_ns(),
                           static_cast<TimeNs>(args.sizes.size()) * estimate.total_ns));
  for (const std::string& m : sweep->missing) {
    std::cerr << fmt::format("jouleprof: {} {}\n", args.op, m);
    if (csv) csv << "# missing " << m << '\n';
  }
  const auto r_text = [](const std::optional<double>& r) {
    return r ? fmt::format("{:.3f}", *r) : std::string("n/a (fewer than two sizes, or no spread)");
  };
  std::cout << fmt::format("Pearson r of net energy (top-level channels) vs input size: {}\n",
                           r_text(sweep->net_energy_vs_input_r));
  std::cout << fmt::format("Pearson r of net energy vs run time: {}\n",
                           r_text(sweep->net_energy_vs_call_time_r));
  if (progress.interrupted()) return kExitInterrupted;
  return sweep->missing.empty() ? kExitOk : kExitError;
}
#endif

}  // namespace

CommandRunner add_measure_command(CLI::App& parent) {
  auto args = std::make_shared<MeasureArgs>();
  CLI::App* cmd = parent.add_subcommand(
      "measure",
      "Gated fine-grained energy measurement (FECoM): stability gate, idle baseline, "
      "net and tail energy, repetitions. Settings: the standard preset (≈ 5 s per repetition), "
      "--quick, or FECoM's published ones with --fecom-defaults; the estimate is printed first");
  cmd->add_option("--fecom-records", args->fecom_records,
                  "Re-analyse FECoM's published per-call records (a directory of "
                  "experiment-<k>.json) and print per-API mean ± stdev")
      ->check(CLI::ExistingDirectory);
  add_format_option(*cmd, args->format, {OutputFormat::kTable, OutputFormat::kJson},
                    "Output format");
  cmd->add_option("--output", args->output,
                  "With a command: directory for profile.json and measure.json (the run is then "
                  "also recorded in the history). With --op: the CSV file of results");
  cmd->add_option("--db", args->db,
                  "Run history: a SQLite file or a postgresql:// URL (default: $JOULEPROF_DB, "
                  "else the user's data directory)");
  cmd->add_flag("--no-history", args->no_history, "Do not record the measurement in the history");
  args->gated = std::make_unique<GatedFlags>(*cmd, gated_preset(GatedPreset::kStandard));
  args->progress.add_to(*cmd);
  args->sources.add_to(*cmd);
#ifdef JOULEPROF_HAVE_TORCH
  std::string ops;
  for (const std::string& op : torch_adapter::measurable_ops())
    ops += (ops.empty() ? "" : ", ") + op;
  cmd->add_option("--op", args->op, "Measure a libtorch API call across input sizes: " + ops);
  cmd->add_option("--sizes", args->sizes, "Input sizes for --op (matrix side, channels, batch …)")
      ->delimiter(',');
  add_device_option(*cmd, args->device, "Where --op runs");
#endif
  cmd->add_flag("--auto-window", args->auto_window,
                "Instead of FECoM's gate: sweep the measurement window and the cooldown between "
                "trials (Zeus-style) until the per-call energy's spread across trials falls below "
                "--window-max-cv, and report the chosen window and cooldown (docs/measure.md)");
  cmd->add_option("--window-max-cv", args->window_max_cv_pct,
                  "--auto-window: spread across trials to reach, % of the mean")
      ->check(kPositiveNumber)
      ->capture_default_str();
  cmd->add_option("--window-trials", args->window.trials, "--auto-window: trials per setting")
      ->check(CLI::Range(2, 100))
      ->capture_default_str();
  cmd->add_option("command", args->command, "The command to measure (after --)");
  return [args, cmd] {
    if (!args->fecom_records.empty()) return run_fecom_records(*args);
    if (!args->command.empty() && args->auto_window) {
      return run_auto_window(*args, command_call(args->command),
                             fmt::format("{}", fmt::join(args->command, " ")));
    }
    if (!args->command.empty()) return run_gated_command(*args);
#ifdef JOULEPROF_HAVE_TORCH
    if (!args->op.empty()) {
      if (args->sizes.empty()) {
        return report_error(invalid_input("measure", "--sizes", "", "--op needs --sizes LIST"));
      }
      return run_op_sizes(*args);
    }
#endif
    std::cerr << cmd->help();
    return kExitUsage;
  };
}

}  // namespace jouleprof::cli
