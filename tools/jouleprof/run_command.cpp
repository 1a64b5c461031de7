// `jouleprof run -- CMD ARGS…`: measure the energy of a command.
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>

#include "command.hpp"
#include "core/parse.hpp"
#include "jouleprof/cluster.hpp"
#include "jouleprof/command_measurement.hpp"
#include "jouleprof/epoch_file.hpp"
#include "jouleprof/history.hpp"
#include "jouleprof/live_epochs.hpp"
#include "jouleprof/monitor.hpp"
#include "jouleprof/observed_processes.hpp"
#include "jouleprof/process_share.hpp"
#include "jouleprof/report.hpp"
#include "jouleprof/samples_csv.hpp"
#include "number_checks.hpp"
#include "nvtx/child_spans.hpp"
#include "progress_line.hpp"
#include "report/markup.hpp"
#include "source_flags.hpp"
#include "text_view_flags.hpp"
#include "training/epoch_log.hpp"
#include "training/epoch_summary.hpp"

namespace jouleprof::cli {
namespace {

namespace fs = std::filesystem;

struct RunFlags {
  SourceFlags sources;
  std::optional<double> interval_ms;
  double idle_s = 0.0;
  std::string output;
  std::string report;  // where the report goes: "" = stderr, "-" = stdout, else a file
  std::string format = "table";
  TextViewFlags view;
  std::optional<double> grid_g_per_kwh;
  std::optional<int> epochs;
  std::string db;
  bool no_history = false;
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
  std::string line =
      fmt::format("[jouleprof] epoch {}/{}: {} in {}", u.epoch + 1, total_epochs,
                  report::format_energy(u.energy_j), report::format_duration(u.duration_ns));
  if (u.counter_updates < kMinEpochCounterUpdates) {
    line +=
        fmt::format(" (only {} counter updates: see the warning at the end)", u.counter_updates);
  }
  if (p.ready) {
    line += fmt::format("; projected total {} [{}, {}] (STEP s={}, w={}), {} to go",
                        report::format_energy(p.projection.total_j),
                        report::format_energy(p.projection.band_low_j),
                        report::format_energy(p.projection.band_high_j), p.projection.stable_epoch,
                        p.projection.window, report::format_energy(p.remaining_j));
  } else {
    line +=
        fmt::format("; STEP projects once {} epochs are known", step.stable_epoch + step.window);
  }
  progress.line(line);
}

// Where a run's files go: into a directory (profile.json, samples.csv, spans.json), or — for a
// path ending in ".json" — that file, with <stem>.samples.csv and <stem>.spans.json beside it.
struct RunFiles {
  fs::path directory;
  fs::path profile;
  fs::path samples;
  fs::path spans;
  bool created = false;  // the directory, by this run: removed again when the command cannot start
};

// ./jouleprof-runs/<UTC time>, with a suffix when that directory already exists.
fs::path default_run_directory() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char stamp[32];
  std::strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &utc);
  fs::path dir = fs::path("jouleprof-runs") / stamp;
  for (int n = 2; fs::exists(dir); ++n)
    dir = fs::path("jouleprof-runs") / fmt::format("{}-{}", stamp, n);
  return dir;
}

// The run's files, their directory made (and checked for writing) before the command starts, so
// that a bad --output cannot cost the measurement.
Result<RunFiles> prepare_run_files(const std::string& requested) {
  const fs::path path = requested.empty() ? default_run_directory() : fs::path(requested);
  RunFiles files{path, path / "profile.json", path / "samples.csv", path / "spans.json"};
  if (path.extension() == ".json") {
    const fs::path stem = path.parent_path() / path.stem();
    files = RunFiles{path.parent_path(), path, stem.string() + ".samples.csv",
                     stem.string() + ".spans.json"};
  }
  const fs::path dir = files.directory.empty() ? fs::path(".") : files.directory;
  std::error_code ec;
  const fs::file_status status = fs::status(dir, ec);
  if (fs::exists(status) && !fs::is_directory(status)) {
    const std::string what = dir == path ? std::string() : " its directory " + dir.string();
    return Error(ErrorCode::kInvalidInput,
                 fmt::format("--output {}:{} exists and is not a directory (give a directory, "
                             "or a FILE.json for the profile)",
                             path.string(), what));
  }
  files.created = !fs::exists(status);
  fs::create_directories(dir, ec);
  if (ec) {
    return Error(ErrorCode::kIo, fmt::format("--output {}: cannot create the directory {}: {}",
                                             path.string(), dir.string(), ec.message()));
  }
  if (access(dir.c_str(), W_OK | X_OK) != 0) {
    return Error(ErrorCode::kPermissionDenied,
                 fmt::format("--output {}: cannot write into the directory {}: {}", path.string(),
                             dir.string(), std::strerror(errno)));
  }
  return files;
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
                                 report::format_power(watts), report::format_energy(s.energy_j)));
  }

 private:
  ProgressLine& progress_;
  LiveStatus last_;
};

// The epochs the job reported, as marks on the run's timeline, unless its own spans brought
// them (`--spans`: the recorder marked the same boundaries).
void add_epoch_marks(const std::vector<EpochBoundary>& boundaries, Profile& profile) {
  for (const Mark& m : profile.timeline.marks()) {
    const std::string& name = profile.timeline.name(m.name);
    if (name == kEpochEndMarkName || name == kEpochBeginMarkName) return;
  }
  if (boundaries.empty()) return;
  const std::uint32_t track =
      profile.timeline.add_track(Track{TrackKind::kProcess, "the measured command", ""});
  for (const EpochBoundary& b : boundaries) {
    const bool begin = b.kind == EpochBoundary::Kind::kBegin;
    profile.timeline.add_mark(Mark{
        b.t_ns, track, profile.timeline.intern(begin ? kEpochBeginMarkName : kEpochEndMarkName)});
  }
}

// The run's report — the text view (headline, channels, epochs; with spans the top operators and
// the tree; warnings) or the profile JSON — on stderr, so that the command's own stdout stays
// its own; on stdout or into a file when --report says so. False when the file cannot be written.
bool print_report(const CommandMeasurement& m, const RunFiles& files, const RunFlags& flags) {
  const Profile& profile = m.profile;
  const bool to_stdout = flags.report == "-";
  const bool to_file = !flags.report.empty() && !to_stdout;
  const int fd = to_stdout ? STDOUT_FILENO : to_file ? -1 : STDERR_FILENO;
  std::string text;
  if (flags.format == "json") {
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
  }
  if (to_file) {
    std::ofstream out(flags.report, std::ios::binary | std::ios::trunc);
    out << text;
    out.close();
    if (!out) {
      report_error(Error(ErrorCode::kIo, flags.report + ": cannot write the report"));
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

int run(const RunFlags& flags) {
  const Result<SourceOptions> source_options = flags.sources.to_options();
  if (!source_options) return report_error(source_options.error());
  const SourceOptions& sources = *source_options;
  std::optional<double> grid = flags.grid_g_per_kwh;
  if (!grid) {
    if (const char* env = std::getenv("JOULEPROF_GRID_INTENSITY")) {
      const std::optional<double> v = to_number(env);
      if (!v || *v < 0) {
        return report_error(invalid_input("JOULEPROF_GRID_INTENSITY", "g/kWh", env,
                                          "not a finite non-negative number"));
      }
      grid = *v;
    }
  }
  const bool observe_running = flags.pid.has_value() || !flags.cgroup.empty();
  if (observe_running == !flags.command.empty() || (flags.pid && !flags.cgroup.empty())) {
    report_error(invalid_input("command line", "what to measure",
                               flags.command.empty() && !observe_running ? "nothing" : "two things",
                               "give one: a command after --, --pid PID or --cgroup PATH"));
    return kExitUsage;
  }
  const std::optional<StaticShare> static_share = static_share_from_string(flags.static_share);
  MonitorOptions monitor_options;
  monitor_options.sources = sources;
  monitor_options.sources.observed = !flags.cgroup.empty()
                                         ? ObservedProcesses::cgroup(flags.cgroup)
                                         : ObservedProcesses::process_tree(flags.pid.value_or(0));
  // Spans weigh by their thread's CPU time: the process source then follows every thread.
  if (flags.spans || flags.nvtx) monitor_options.sources.settings["processes.threads"] = "1";
  if (static_share) monitor_options.process_shares.static_share = *static_share;
  if (flags.interval_ms) monitor_options.interval_ns = s_to_ns(*flags.interval_ms * 1e-3);
  Result<std::unique_ptr<Monitor>> monitor = Monitor::open(monitor_options);
  if (!monitor) return report_error(monitor.error());
  Result<RunFiles> run_files = prepare_run_files(flags.output);
  if (!run_files) return report_error(run_files.error());
  const RunFiles& files = *run_files;

  ProgressLine progress = ProgressLine::for_stderr();
  StatusTicker status(progress);
  CommandMeasurementOptions options;
  options.argv = flags.command;
  options.idle_ns = s_to_ns(flags.idle_s);
  std::optional<LiveEpochProjector> epochs;
  std::string epoch_file;
  std::vector<std::string> epoch_errors;
  if (flags.epochs) {
    // The job's epoch_end() calls append to this file (named in the child's environment).
    epoch_file =
        (fs::temp_directory_path() / fmt::format("jouleprof-epochs-{}", getpid())).string();
    fs::remove(epoch_file);
    options.environment.emplace_back(kEpochFileEnv, epoch_file);
    epochs.emplace(epoch_file, *flags.epochs);
  }
  const Monitor& live_monitor = **monitor;
  options.on_tick = [&](const LiveStatus& s) {
    if (epochs) {
      const Result<std::vector<EpochUpdate>> updates =
          epochs->poll(live_monitor, monotonic_now_ns() - s.elapsed_ns);
      if (!updates && epoch_errors.empty()) epoch_errors.push_back(updates.error().message());
      if (updates) {
        for (const EpochUpdate& u : *updates)
          print_epoch_update(u, *flags.epochs, epochs->options(), progress);
      }
    }
    status.update(s);
  };
  // Spans: the child inherits the variables that make it record and write its dump at exit.
  std::optional<nvtx::ChildSpanCapture> capture;
  if (flags.spans || flags.nvtx) {
    std::string nvtx_library;
    if (flags.nvtx) {
      Result<std::string> found = nvtx::find_nvtx_library();
      if (!found) return report_error(found.error());
      nvtx_library = *found;
    }
    const fs::path spans_dir =
        fs::temp_directory_path() / fmt::format("jouleprof-spans-{}", getpid());
    Result<nvtx::ChildSpanCapture> prepared =
        nvtx::prepare_child_span_capture(spans_dir.string(), nvtx_library);
    if (!prepared) return report_error(prepared.error());
    capture = std::move(*prepared);
    options.environment.insert(options.environment.end(), capture->environment.begin(),
                               capture->environment.end());
  }
  Result<CommandMeasurement> measured =
      observe_running ? measure_observed(**monitor, options) : measure_command(**monitor, options);
  if (!measured) {
    if (observe_running) return report_error(measured.error());
    report_error(measured.error());
    std::error_code ignored;
    if (files.created) fs::remove(files.directory, ignored);  // no empty run left behind
    // What a shell answers for a command it cannot start.
    return measured.error().code() == ErrorCode::kNotFound ? 127 : 126;
  }
  CommandMeasurement& m = *measured;

  Profile& profile = m.profile;
  apply_cluster_identity(detect_cluster_identity(), profile.meta);
  if (epochs) {
    // Epochs that ended after the last tick.
    const Result<std::vector<EpochUpdate>> late =
        epochs->poll(profile.series, profile.meta.begin_ns);
    if (late) {
      for (const EpochUpdate& u : *late)
        print_epoch_update(u, *flags.epochs, epochs->options(), progress);
    }
    fs::remove(epoch_file);
    profile.meta.options["epochs.total"] = std::to_string(*flags.epochs);
    if (epochs->epoch_energies_j().empty()) {
      profile.warnings.push_back(fmt::format(
          "--epochs {}: the command reported no epoch end (call jouleprof::epoch_end() or "
          "jp_epoch_end() after each epoch)",
          *flags.epochs));
    }
    for (const std::string& e : epoch_errors) profile.warnings.push_back("epoch file: " + e);
  }
  profile.meta.grid_intensity_g_per_kwh = grid;
  profile.meta.options["run.idle_s"] = fmt::format("{}", flags.idle_s);
  if (flags.interval_ms)
    profile.meta.options["run.interval_ms"] = fmt::format("{}", *flags.interval_ms);
  if (!flags.sources.sources.empty()) profile.meta.options["run.source"] = flags.sources.sources;
  if (flags.sources.sysfs_root != "/")
    profile.meta.options["run.sysfs_root"] = flags.sources.sysfs_root;
  for (const auto& [key, value] : sources.settings) profile.meta.options["setting." + key] = value;
  if (capture) {
    if (const Status attached = nvtx::attach_child_spans(profile, *capture); !attached) {
      profile.warnings.push_back("the command's spans could not be used: " +
                                 attached.error().message());
    }
    std::error_code ec;
    if (fs::exists(capture->spans_path))
      fs::copy_file(capture->spans_path, files.spans, fs::copy_options::overwrite_existing, ec);
    fs::remove_all(fs::path(capture->spans_path).parent_path(), ec);
  }

  if (epochs) add_epoch_marks(epochs->boundaries(), profile);
  summarize_epochs(profile);

  Status written = write_profile_json(profile, files.profile.string());
  if (written) written = write_samples_csv(profile.series, files.samples.string());
  if (!written) {
    // A full disk or a directory removed during the run does not cost the measurement.
    const fs::path rescue = fs::temp_directory_path() / fmt::format("jouleprof-run-{}", getpid());
    std::error_code ec;
    fs::create_directories(rescue, ec);
    report_error(written.error());
    if (write_profile_json(profile, (rescue / "profile.json").string()) &&
        write_samples_csv(profile.series, (rescue / "samples.csv").string())) {
      std::cerr << "jouleprof: the measurement was written to " << rescue.string() << " instead\n";
    }
    return kExitError;
  }
  if (!flags.no_history) {
    const std::string db = flags.db.empty() ? default_history_path() : flags.db;
    const Result<std::int64_t> id = record_run(db, profile, files.profile.string());
    if (!id) {
      profile.warnings.push_back("run not recorded in the history: " + id.error().message());
    }
  }
  progress.clear();
  return print_report(m, files, flags) ? m.exit_code : kExitError;
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
                  "ROCm SMI and Level Zero 20, hwmon and batteries 100)")
      ->type_name("MS")
      ->check(number_in(0.01, 60000.0));
  app->add_option("--idle", flags->idle_s,
                  "Measure an idle baseline for SECONDS before the command")
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
  app->add_option("--format", flags->format, "The report: a table, or the profile JSON")
      ->check(CLI::IsMember({"table", "json"}));
  flags->view.add_to(*app);
  app->add_option("--epochs", flags->epochs,
                  "The command trains for N epochs and calls jouleprof::epoch_end() / "
                  "jp_epoch_end() after each: print each epoch's energy and, from epoch s + w on, "
                  "the STEP projection of the whole run")
      ->type_name("N")
      ->check(CLI::Range(1, 1000000));
  app->add_option("--db", flags->db,
                  "Run history database (default: $JOULEPROF_DB, else the user's data directory)")
      ->type_name("PATH");
  app->add_flag("--no-history", flags->no_history, "Do not record this run in the history");
  app->add_option("--grid-intensity", flags->grid_g_per_kwh,
                  "Grid carbon intensity in g CO2e per kWh (default: $JOULEPROF_GRID_INTENSITY)")
      ->type_name("G_PER_KWH")
      ->check(kNonNegativeNumber);
  app->add_flag("--spans", flags->spans,
                "Collect the spans the command records through libjouleprof (C/C++/Python API) and "
                "attribute the energy to them (tree in profile.json, dump in spans.json)");
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
