// `jouleprof run -- CMD ARGS…`: measure the energy of a command.
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <iostream>

#include "command.hpp"
#include "jouleprof/cluster.hpp"
#include "jouleprof/command_measurement.hpp"
#include "jouleprof/epoch_file.hpp"
#include "jouleprof/history.hpp"
#include "jouleprof/live_epochs.hpp"
#include "jouleprof/monitor.hpp"
#include "jouleprof/samples_csv.hpp"
#include "number_checks.hpp"
#include "nvtx/child_spans.hpp"
#include "source_flags.hpp"

namespace jouleprof::cli {
namespace {

namespace fs = std::filesystem;

struct RunFlags {
  SourceFlags sources;
  std::optional<double> interval_ms;
  double idle_s = 0.0;
  std::string output;
  std::string format = "table";
  std::optional<double> grid_g_per_kwh;
  std::optional<int> epochs;
  std::string db;
  bool no_history = false;
  bool spans = false;  // collect the command's spans (JOULEPROF_SPANS_FILE)
  bool nvtx = false;   // … and its NVTX ranges (NVTX_INJECTION64_PATH)
  std::vector<std::string> command;
};

// The STEP projection as epochs end, on stderr (stdout stays the report).
void print_epoch_update(const EpochUpdate& u, int total_epochs, const StepOptions& step) {
  const LiveProjection& p = u.projection;
  std::string line = fmt::format("[jouleprof] epoch {}/{}: {:.2f} J in {:.1f} s", u.epoch + 1,
                                 total_epochs, u.energy_j, ns_to_s(u.duration_ns));
  if (p.ready) {
    line +=
        fmt::format("; projected total {:.1f} J [{:.1f}, {:.1f}] (STEP s={}, w={}), {:.1f} J to go",
                    p.projection.total_j, p.projection.band_low_j, p.projection.band_high_j,
                    p.projection.stable_epoch, p.projection.window, p.remaining_j);
  } else {
    line +=
        fmt::format("; STEP projects once {} epochs are known", step.stable_epoch + step.window);
  }
  std::cerr << "\r\033[K" << line << '\n';
}

struct OutputDirectory {
  fs::path path;
  bool created = false;  // by this run: removed again when the command cannot start
};

// ./jouleprof-runs/<UTC time>, with a suffix when that directory already exists. Made (and checked
// for writing) before the command starts, so that a bad --output cannot cost the measurement.
Result<OutputDirectory> output_directory(const std::string& requested) {
  fs::path dir = requested;
  if (dir.empty()) {
    const std::time_t now = std::time(nullptr);
    std::tm utc{};
    gmtime_r(&now, &utc);
    char stamp[32];
    std::strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &utc);
    dir = fs::path("jouleprof-runs") / stamp;
    for (int n = 2; fs::exists(dir); ++n)
      dir = fs::path("jouleprof-runs") / fmt::format("{}-{}", stamp, n);
  }
  std::error_code ec;
  const fs::file_status status = fs::status(dir, ec);
  if (fs::exists(status) && !fs::is_directory(status)) {
    return Error(ErrorCode::kInvalidInput,
                 fmt::format("--output {}: exists and is not a directory (profile.json and "
                             "samples.csv are written into a directory)",
                             dir.string()));
  }
  const bool created = !fs::exists(status);
  fs::create_directories(dir, ec);
  if (ec) {
    return Error(ErrorCode::kIo, fmt::format("--output {}: cannot create the directory: {}",
                                             dir.string(), ec.message()));
  }
  if (access(dir.c_str(), W_OK | X_OK) != 0) {
    return Error(ErrorCode::kPermissionDenied,
                 fmt::format("--output {}: cannot write into the directory: {}", dir.string(),
                             std::strerror(errno)));
  }
  return OutputDirectory{dir, created};
}

std::string optional_number(const std::optional<double>& v, std::string_view format = "{:.3f}") {
  return v ? fmt::vformat(format, fmt::make_format_args(*v)) : std::string("-");
}

void print_table(const CommandMeasurement& m, const fs::path& dir, std::optional<double> grid) {
  const Profile& p = m.profile;
  std::string command;
  for (const std::string& a : p.meta.command) command += (command.empty() ? "" : " ") + a;
  std::cout << fmt::format("\njouleprof run: {} — {} after {:.3f} s{}\n", command,
                           m.child ? m.child->describe() : "not started",
                           ns_to_s(p.meta.end_ns - p.meta.begin_ns),
                           p.meta.partial ? " (partial)" : "");
  std::cout << fmt::format("{:<28} {:<10} {:>11} {:>11} {:>9} {:>9} {:>9} {:>9}\n", "channel",
                           "provenance", "energy J", "net J", "idle W", "time s", "mean W",
                           "peak W");
  for (const ChannelSummary& c : p.channels) {
    const Series* s = p.find_series(c.channel_id);
    const bool nested = s != nullptr && !s->channel().is_top_level();
    std::cout << fmt::format("{:<28} {:<10} {:>11.3f} {:>11} {:>9} {:>9.3f} {:>9.2f} {:>9.2f}\n",
                             (nested ? "  " : "") + c.channel_id, to_string(c.provenance),
                             c.energy_j, optional_number(c.net_energy_j),
                             optional_number(c.idle_power_w, "{:.2f}"), ns_to_s(c.duration_ns),
                             c.mean_power_w, c.peak_power_w);
  }
  const double total_j = p.total_energy_j();
  std::cout << fmt::format("total (top-level channels): {:.3f} J\n", total_j);
  if (grid) {
    std::cout << fmt::format("CO2e: {:.4f} g at {} g/kWh\n", co2e_g(total_j, *grid), *grid);
  } else {
    std::cout << "CO2e: give --grid-intensity G_PER_KWH (or JOULEPROF_GRID_INTENSITY) to see it\n";
  }
  std::cout << fmt::format("written: {}  {}\n", (dir / "profile.json").string(),
                           (dir / "samples.csv").string());
}

// Elapsed time, power over the last tick, energy so far: one line, rewritten in place.
class StatusLine {
 public:
  void update(const LiveStatus& s) {
    const double dt = ns_to_s(s.elapsed_ns - last_.elapsed_ns);
    const double watts = dt > 0 ? (s.energy_j - last_.energy_j) / dt : 0.0;
    last_ = s;
    std::cerr << fmt::format("\r\033[K[jouleprof] {:7.1f} s  {:8.2f} W  {:10.2f} J",
                             ns_to_s(s.elapsed_ns), watts, s.energy_j)
              << std::flush;
    shown_ = true;
  }
  ~StatusLine() {
    if (shown_) std::cerr << "\r\033[K" << std::flush;
  }

 private:
  LiveStatus last_;
  bool shown_ = false;
};

int run(const RunFlags& flags) {
  const Result<SourceOptions> source_options = flags.sources.to_options();
  if (!source_options) return report_error(source_options.error());
  const SourceOptions& sources = *source_options;
  std::optional<double> grid = flags.grid_g_per_kwh;
  if (!grid) {
    if (const char* env = std::getenv("JOULEPROF_GRID_INTENSITY")) {
      char* end = nullptr;
      const double v = std::strtod(env, &end);
      if (end == env || *end != '\0' || !std::isfinite(v) || v < 0) {
        return report_error(invalid_input("JOULEPROF_GRID_INTENSITY", "g/kWh", env,
                                          "not a finite non-negative number"));
      }
      grid = v;
    }
  }
  MonitorOptions monitor_options;
  monitor_options.sources = sources;
  if (flags.interval_ms) monitor_options.interval_ns = s_to_ns(*flags.interval_ms * 1e-3);
  Result<std::unique_ptr<Monitor>> monitor = Monitor::open(monitor_options);
  if (!monitor) return report_error(monitor.error());
  Result<OutputDirectory> output = output_directory(flags.output);
  if (!output) return report_error(output.error());

  std::optional<StatusLine> status;
  if (isatty(STDERR_FILENO) != 0) status.emplace();
  CommandMeasurementOptions options;
  options.argv = flags.command;
  options.idle_ns = s_to_ns(flags.idle_s);
  std::optional<LiveEpochProjector> epochs;
  std::string epoch_file;
  std::vector<std::string> epoch_errors;
  if (flags.epochs) {
    // The job's epoch_end() calls append to this file (the variable is inherited by the child).
    epoch_file =
        (fs::temp_directory_path() / fmt::format("jouleprof-epochs-{}", getpid())).string();
    fs::remove(epoch_file);
    setenv(kEpochFileEnv, epoch_file.c_str(), 1);
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
          print_epoch_update(u, *flags.epochs, epochs->options());
      }
    }
    if (status) status->update(s);
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
    for (const auto& [name, value] : capture->environment) setenv(name.c_str(), value.c_str(), 1);
  }
  Result<CommandMeasurement> measured = measure_command(**monitor, options);
  if (capture) {
    for (const auto& [name, value] : capture->environment) unsetenv(name.c_str());
  }
  if (!measured) {
    report_error(measured.error());
    std::error_code ignored;
    if (output->created) fs::remove(output->path, ignored);  // no empty run left behind
    // What a shell answers for a command it cannot start.
    return measured.error().code() == ErrorCode::kNotFound ? 127 : 126;
  }
  CommandMeasurement& m = *measured;
  status.reset();

  const fs::path* dir = &output->path;
  Profile& profile = m.profile;
  apply_cluster_identity(detect_cluster_identity(), profile.meta);
  if (epochs) {
    // Epochs that ended after the last tick.
    const Result<std::vector<EpochUpdate>> late =
        epochs->poll(profile.series, profile.meta.begin_ns);
    if (late) {
      for (const EpochUpdate& u : *late) print_epoch_update(u, *flags.epochs, epochs->options());
    }
    fs::remove(epoch_file);
    const std::vector<double>& energies = epochs->epoch_energies_j();
    std::string list;
    for (double e : energies) list += fmt::format("{}{:.6f}", list.empty() ? "" : ",", e);
    profile.meta.options["epochs.total"] = std::to_string(*flags.epochs);
    profile.meta.options["epochs.energy_j"] = list;
    if (energies.empty()) {
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
      fs::copy_file(capture->spans_path, *dir / "spans.json", fs::copy_options::overwrite_existing,
                    ec);
    fs::remove_all(fs::path(capture->spans_path).parent_path(), ec);
  }

  Status written = write_profile_json(profile, (*dir / "profile.json").string());
  if (written) written = write_samples_csv(profile.series, (*dir / "samples.csv").string());
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
    const Result<std::int64_t> id = record_run(db, profile, (*dir / "profile.json").string());
    if (!id) {
      std::cerr << "jouleprof: warning: run not recorded in the history: " << id.error().message()
                << '\n';
    }
  }

  if (flags.format == "json") {
    std::cout << profile_to_json_string(profile, 2) << '\n';
  } else {
    print_table(m, *dir, grid);
    if (capture && profile.tree) {
      std::cout << fmt::format("spans from the command: {}; energy by top-level span:\n",
                               profile.timeline.spans().size());
      for (const ProfileNode& node : profile.tree->children) {
        std::cout << fmt::format("  {:<40} {:>11.3f} J\n", node.name, node.energy_j);
      }
    }
  }
  for (const std::string& w : profile.warnings) std::cerr << "jouleprof: warning: " << w << '\n';
  if (m.child && !m.child->exited)
    std::cerr << "jouleprof: the command was " << m.child->describe() << '\n';
  return m.exit_code;
}

}  // namespace

CommandRunner add_run_command(CLI::App& parent) {
  CLI::App* app = parent.add_subcommand(
      "run",
      "Run a command and measure its energy: per channel gross and net energy, duration, "
      "mean and peak power, CO2e. Exits with the command's exit code (128+N if signal N ended "
      "it); a signal N sent to jouleprof is passed on to the command and ends the run, marked "
      "partial, with 128+N.");
  auto flags = std::make_shared<RunFlags>();
  flags->sources.add_to(*app);
  app->add_option("--interval", flags->interval_ms,
                  "Poll every source every MS milliseconds (default: per source, RAPL 10, NVML 20, "
                  "hwmon and batteries 100)")
      ->type_name("MS")
      ->check(number_in(0.01, 60000.0));
  app->add_option("--idle", flags->idle_s,
                  "Measure an idle baseline for SECONDS before the command")
      ->type_name("SECONDS")
      ->check(number_in(0.0, 3600.0));
  app->add_option(
         "--output", flags->output,
         "Directory for profile.json and samples.csv (default: ./jouleprof-runs/<UTC time>)")
      ->type_name("DIR");
  app->add_option("--format", flags->format,
                  "What to print on stdout: a table, or the profile JSON")
      ->check(CLI::IsMember({"table", "json"}));
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
  app->add_option("command", flags->command, "The command to run, after --")->required();
  app->positionals_at_end();
  return [flags] { return run(*flags); };
}

}  // namespace jouleprof::cli
