// `jouleprof run -- CMD ARGS…`: measure_run (jouleprof/run_measurement.hpp) from flags, its live
// status and epoch lines, and the report.
#include <fmt/format.h>
#include <unistd.h>

#include <cstdlib>
#include <iostream>
#include <limits>

#include "command.hpp"
#include "core/parse.hpp"
#include "core/quantity_text.hpp"
#include "core/text_file.hpp"
#include "jouleprof/history.hpp"
#include "jouleprof/observed_processes.hpp"
#include "jouleprof/process_share.hpp"
#include "jouleprof/report.hpp"
#include "jouleprof/run_measurement.hpp"
#include "number_checks.hpp"
#include "output_format.hpp"
#include "progress_line.hpp"
#include "source_flags.hpp"
#include "text_view_flags.hpp"

namespace jouleprof::cli {
namespace {

struct RunFlags {
  SourceFlags sources;
  std::optional<double> interval_ms;
  double idle_s = 0.0;
  std::string output;
  std::string report;  // where the report goes: "" = stderr, "-" = stdout, else a file
  OutputFormat format = OutputFormat::kTable;
  TextViewFlags view;
  std::optional<double> grid_g_per_kwh;
  std::optional<int> epochs;
  std::string db;
  bool no_history = false;
  std::string label;  // history tags; branch and commit default to the CI environment's
  std::string branch;
  std::string commit;
  bool spans = false;      // collect the command's spans (JOULEPROF_SPANS_FILE)
  bool nvtx = false;       // … and its NVTX ranges (NVTX_INJECTION64_PATH)
  std::optional<int> pid;  // observe a running process (and its descendants) instead
  std::string cgroup;      // observe a cgroup-v2 group instead
  std::string static_share = "cpu-time";
  std::vector<std::string> command;
};

// The STEP projection as epochs end: one line each, which stays (progress.line).
void print_epoch_update(const EpochUpdate& u, int total_epochs, const StepOptions& step,
                        ProgressLine& progress) {
  const LiveProjection& p = u.projection;
  std::string line = fmt::format("[jouleprof] epoch {}/{}: {} in {}", u.epoch + 1, total_epochs,
                                 format_energy(u.energy_j), format_duration(u.duration_ns));
  if (u.counter_updates < kMinEpochCounterUpdates) {
    line +=
        fmt::format(" (only {} counter updates: see the warning at the end)", u.counter_updates);
  }
  if (p.ready) {
    line += fmt::format("; projected total {} [{}, {}] (STEP s={}, w={}), {} to go",
                        format_energy(p.projection.total_j), format_energy(p.projection.band_low_j),
                        format_energy(p.projection.band_high_j), p.projection.stable_epoch,
                        p.projection.window, format_energy(p.remaining_j));
  } else if (total_epochs < step.stable_epoch + step.window) {
    line += fmt::format(
        "; no STEP projection: the planned {} epochs are fewer than its s + w = {}, so the run's "
        "energy is the sum of its epochs",
        total_epochs, step.stable_epoch + step.window);
  } else {
    line +=
        fmt::format("; STEP projects once {} epochs are known", step.stable_epoch + step.window);
  }
  progress.line(line);
}

// Elapsed time, power over the last tick, energy so far: one status line, on a terminal only.
class StatusTicker {
 public:
  explicit StatusTicker(ProgressLine& progress) : progress_(progress) {}
  void update(const LiveStatus& s) {
    const double dt = ns_to_s(s.elapsed_ns - last_.elapsed_ns);
    const double watts = dt > 0 ? (s.energy_j - last_.energy_j) / dt : 0.0;
    last_ = s;
    progress_.status(fmt::format("[jouleprof] {:7.1f} s  {:>9}  {:>9}", ns_to_s(s.elapsed_ns),
                                 format_power(watts), format_energy(s.energy_j)));
  }

 private:
  ProgressLine& progress_;
  LiveStatus last_;
};

// The run's report — the text view (headline, channels, epochs; with spans the top operators and
// the tree; warnings) or the profile JSON — on stderr, so that the command's own stdout stays
// its own; on stdout or into a file when --report says so. False when the file cannot be written.
bool print_report(const CommandMeasurement& m, const RunFiles& files, const RunFlags& flags) {
  const Profile& profile = m.profile;
  const bool to_stdout = flags.report == "-";
  const bool to_file = !flags.report.empty() && !to_stdout;
  const int fd = to_stdout ? STDOUT_FILENO : to_file ? -1 : STDERR_FILENO;
  std::string text;
  if (flags.format == OutputFormat::kJson) {
    text = profile_to_json_string(profile, 2) + '\n';
  } else {
    ReportOptions options;
    options.text = flags.view.options_for(fd);
    options.text.attribution = false;
    options.text.tree = profile.tree.has_value() && !profile.timeline.spans().empty();
    if (m.child && !m.child->exited)
      options.text.notes.push_back("the command was " + m.child->describe());
    if (!profile.meta.grid_intensity_g_per_kwh) {
      options.text.notes.push_back(
          "CO2e: give --grid-intensity G_PER_KWH (or JOULEPROF_GRID_INTENSITY) to see it");
    }
    Result<std::string> rendered = render_report("text", profile, options);
    if (!rendered) {
      report_error(rendered.error());
      return false;
    }
    text = "\n" + *rendered +
           fmt::format("written: {}  {}\n", files.profile.string(), files.samples.string());
    if (!files.ranks.empty()) {
      text += fmt::format("ranks: {} profiles, {} … {}", files.ranks.size(),
                          files.ranks.front().string(), files.ranks.back().string());
      text += files.merged.empty()
                  ? "\n"
                  : fmt::format("; merged: {} (its rank table: jouleprof report {})\n",
                                files.merged.string(), files.merged.string());
    }
  }
  if (to_file) {
    if (const Status written = write_text_file(flags.report, text); !written) {
      report_error(written.error());
      return false;
    }
  } else {
    (to_stdout ? std::cout : std::cerr) << text << std::flush;
  }
  // The report went elsewhere: what a reader must know still reaches the terminal, once.
  if (to_stdout || to_file) {
    for (const std::string& w : profile.warnings) std::cerr << "jouleprof: warning: " << w << '\n';
    if (m.child && !m.child->exited)
      std::cerr << "jouleprof: the command was " << m.child->describe() << '\n';
  }
  return true;
}

// The grid intensity from the flag, else $JOULEPROF_GRID_INTENSITY.
Result<std::optional<double>> grid_intensity(const RunFlags& flags) {
  if (flags.grid_g_per_kwh) return flags.grid_g_per_kwh;
  const char* env = std::getenv("JOULEPROF_GRID_INTENSITY");
  if (env == nullptr) return std::optional<double>();
  const std::optional<double> v = to_number(env);
  if (!v) {
    return invalid_input("JOULEPROF_GRID_INTENSITY", "g/kWh", env, "is not a finite number");
  }
  JP_RETURN_IF_ERROR(
      check_figure(FigureKind::kGridIntensity, "JOULEPROF_GRID_INTENSITY", "g/kWh", *v));
  return v;
}

Result<RunOptions> options_from_flags(const RunFlags& flags) {
  RunOptions options;
  JP_TRY(options.monitor.sources, flags.sources.to_options());
  JP_TRY(options.grid_intensity_g_per_kwh, grid_intensity(flags));
  options.command = flags.command;
  if (!flags.cgroup.empty()) {
    options.monitor.sources.observed = ObservedProcesses::cgroup(flags.cgroup);
  } else {
    options.monitor.sources.observed = ObservedProcesses::process_tree(flags.pid.value_or(0));
  }
  if (const std::optional<StaticShare> share = static_share_from_string(flags.static_share))
    options.monitor.process_shares.static_share = *share;
  if (flags.interval_ms) options.monitor.interval_ns = s_to_ns(*flags.interval_ms * 1e-3);
  options.idle_ns = s_to_ns(flags.idle_s);
  options.epochs = flags.epochs;
  options.spans = flags.spans;
  options.nvtx = flags.nvtx;
  options.output = flags.output;
  if (!flags.no_history) {
    const Result<std::string> db = history_path(flags.db);
    options.history_tags = run_tags_from_environment(flags.label);
    if (!flags.branch.empty()) options.history_tags.branch = flags.branch;
    if (!flags.commit.empty()) options.history_tags.commit = flags.commit;
    if (db) {
      options.history_db = *db;
    } else {
      std::cerr << "jouleprof: warning: run not recorded in the history: " << db.error().message()
                << '\n';
    }
  }
  return options;
}

int run(const RunFlags& flags) {
  const bool observe_running = flags.pid.has_value() || !flags.cgroup.empty();
  if (observe_running == !flags.command.empty() || (flags.pid && !flags.cgroup.empty())) {
    report_error(invalid_input("command line", "what to measure",
                               flags.command.empty() && !observe_running ? "nothing" : "two things",
                               "give one: a command after --, --pid PID or --cgroup PATH"));
    return kExitUsage;
  }
  Result<RunOptions> options = options_from_flags(flags);
  if (!options) return report_error(options.error());
  ProgressLine progress = ProgressLine::for_stderr();
  StatusTicker status(progress);
  options->on_status = [&status](const LiveStatus& s) { status.update(s); };
  if (flags.epochs) {
    options->on_epoch = [&](const EpochUpdate& u, const StepOptions& step) {
      print_epoch_update(u, *flags.epochs, step, progress);
    };
  }
  Result<RunMeasurement> run = measure_run(*options);
  if (!run) {
    report_error(run.error());
    // What a shell answers for a command it cannot start.
    if (run.error().subject() == ErrorSubject::kCommandStart)
      return run.error().code() == ErrorCode::kNotFound ? 127 : 126;
    return kExitError;
  }
  progress.clear();
  return print_report(run->measurement, run->files, flags) ? run->measurement.exit_code
                                                           : kExitError;
}

}  // namespace

CommandRunner add_run_command(CLI::App& parent) {
  CLI::App* app = parent.add_subcommand(
      "run",
      "Run a command and measure its energy: per channel gross and net energy, duration, "
      "mean and peak power, CO2e. The report goes to stderr (--report to change that); the "
      "command's stdout is left alone. Exits with the command's exit code (128+N if signal N "
      "ended it); a signal N sent to jouleprof is passed on to the command and ends the run, "
      "marked partial, with 128+N.");
  auto flags = std::make_shared<RunFlags>();
  flags->sources.add_to(*app);
  app->add_option("--interval", flags->interval_ms,
                  "Poll every source every MS milliseconds (default: per source, RAPL 10, NVML, "
                  "ROCm SMI and Level Zero 20, hwmon and batteries 100; 0.01 to 60000)")
      ->type_name("MS")
      ->check(number_in(0.01, 60000.0));
  app->add_option("--idle", flags->idle_s,
                  "Measure an idle baseline for SECONDS before the command (at most 3600)")
      ->type_name("SECONDS")
      ->check(number_in(0.0, 3600.0));
  app->add_option("--output", flags->output,
                  "Directory for profile.json and samples.csv, or a FILE.json for the profile "
                  "(FILE.samples.csv beside it); default: ./jouleprof-runs/<UTC time>")
      ->type_name("DIR|FILE.json");
  app->add_option("--report", flags->report,
                  "Where the report goes: stderr (default, so that the command's stdout stays "
                  "its own), - for stdout, or a FILE")
      ->type_name("-|FILE");
  add_format_option(*app, flags->format, {OutputFormat::kTable, OutputFormat::kJson},
                    "The report: a table, or the profile JSON");
  flags->view.add_to(*app);
  const int step_epochs = StepOptions{}.stable_epoch + StepOptions{}.window;
  app->add_option("--epochs", flags->epochs,
                  fmt::format("The command trains for N epochs and calls jouleprof::epoch_end() / "
                              "jp_epoch_end() after each: print each epoch's energy and, from "
                              "epoch s + w = {} on, the STEP projection of the whole run (none "
                              "for N < {}: the run's energy is the sum of its epochs; at most {})",
                              step_epochs, step_epochs, kMaxEpochs))
      ->type_name("N")
      ->check(count_up_to(kMaxEpochs));
  app->add_option("--db", flags->db,
                  "Run history: a SQLite file or a postgresql:// URL (default: $JOULEPROF_DB, else "
                  "the user's data directory)")
      ->type_name("PATH|URL");
  app->add_flag("--no-history", flags->no_history, "Do not record this run in the history");
  app->add_option("--label", flags->label,
                  "Tag the run in the history with NAME, a baseline for `compare --baseline NAME`")
      ->type_name("NAME");
  app->add_option("--branch", flags->branch,
                  "The branch the run is tagged with (default: the CI job's, from GITHUB_HEAD_REF, "
                  "GITHUB_REF_NAME, CI_COMMIT_BRANCH, CI_COMMIT_REF_NAME, BRANCH_NAME or "
                  "GIT_BRANCH)")
      ->type_name("NAME");
  app->add_option("--commit", flags->commit,
                  "The commit the run is tagged with (default: GITHUB_SHA, CI_COMMIT_SHA or "
                  "GIT_COMMIT)")
      ->type_name("SHA");
  app->add_option("--grid-intensity", flags->grid_g_per_kwh,
                  "Grid carbon intensity in g CO2e per kWh (default: $JOULEPROF_GRID_INTENSITY)")
      ->type_name("G_PER_KWH")
      ->check(figure_of(FigureKind::kGridIntensity, true));
  app->add_flag(
      "--spans", flags->spans,
      "Collect the spans the command records through libjouleprof (C/C++/Python API) and "
      "attribute the energy to them (tree in profile.json, dump in spans.json); spans from "
      "several ranks (a launcher's local ranks) give a [rank N] node each, a profile "
      "per rank and their merge (docs/cluster.md)");
  app->add_flag("--nvtx", flags->nvtx,
                "Also capture the command's NVTX ranges (push/pop, start/end, marks) through "
                "libjouleprof_nvtx.so as NVTX_INJECTION64_PATH; implies --spans (docs/nvtx.md)");
  app->add_option("--pid", flags->pid,
                  "Measure while process PID (already running) and its descendants run, until "
                  "it exits or Ctrl-C, instead of a command; the table gives their share of each "
                  "counter (docs/sharing.md)")
      ->type_name("PID")
      ->check(CLI::Range(1, std::numeric_limits<int>::max()));
  app->add_option("--cgroup", flags->cgroup,
                  "Measure a cgroup-v2 group (a container, a pod, a systemd unit: its directory "
                  "under /sys/fs/cgroup or its path as /proc/PID/cgroup shows it) until Ctrl-C, "
                  "instead of a command; its share comes from its cpu.stat")
      ->type_name("PATH");
  app->add_option("--static-share", flags->static_share,
                  "How the observed processes get the idle (static) part of a shared counter: "
                  "cpu-time (default: by the same CPU-time share as the rest, the published "
                  "Smaragdine rule; needs no baseline, and every process's figures add up to the "
                  "machine's), none (only what they added above idle; needs --idle), all (all "
                  "of it; needs --idle)")
      ->check(CLI::IsMember({"cpu-time", "none", "all"}));
  app->add_option("command", flags->command,
                  "The command to run, after --; its process tree is observed: the table gives "
                  "both the machine's energy and the command's attributed share");
  app->positionals_at_end();
  return [flags] { return run(*flags); };
}

}  // namespace jouleprof::cli
