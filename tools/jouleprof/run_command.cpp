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

Profile& profile = m.profile;
apply_cluster_identity(detect_cluster_identity(), profile.meta);
if (epochs) {
  // Epochs that ended after the last tick.
  const Result<std::vector<EpochUpdate>> late = epochs->poll(profile.series, profile.meta.begin_ns);
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
