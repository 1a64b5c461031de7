#include "jouleprof/run_measurement.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <iostream>

#include "core/quantity_text.hpp"
#include "core/rescue_directories.hpp"
#include "jouleprof/cluster.hpp"
#include "jouleprof/epoch_file.hpp"
#include "jouleprof/epoch_summary.hpp"
#include "jouleprof/history.hpp"
#include "jouleprof/recording_attribution.hpp"
#include "jouleprof/samples_csv.hpp"
#include "pipelines/child_spans.hpp"
#include "pipelines/rank_spans.hpp"
#include "sources/process_activity.hpp"
#include "training/epoch_log.hpp"

namespace jouleprof {
namespace {

namespace fs = std::filesystem;

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
// that a bad output cannot cost the measurement.
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

// The epochs the job reported, as marks on the run's timeline, unless its own spans brought
// them (the recorder marked the same boundaries).
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

// A file beside the profile: <dir>/<name>.json, or FILE.<name>.json beside FILE.json.
fs::path beside_profile(const RunFiles& files, const std::string& name) {
  if (files.profile.filename() == "profile.json") return files.directory / (name + ".json");
  return files.profile.parent_path() /
         (files.profile.stem().string() + "." + name + files.profile.extension().string());
}

// With several ranks: a profile per rank from the run's tree, and their merge.
void split_into_ranks(const std::vector<ChildDump>& dumps, const std::vector<int>& ranks,
                      RunMeasurement& run) {
  Profile& profile = run.measurement.profile;
  run.ranks = rank_profiles(profile, dumps, ranks);
  std::vector<std::string> origins;
  for (const int rank : ranks) {
    run.files.ranks.push_back(beside_profile(run.files, fmt::format("rank-{}", rank)));
    origins.push_back(run.files.ranks.back().string());
  }
  Result<Profile> merged = merge_profiles(run.ranks, origins);
  if (!merged) {
    profile.warnings.push_back("the ranks' profiles could not be merged: " +
                               merged.error().message());
    return;
  }
  run.merged = std::move(merged).value();
  run.files.merged = beside_profile(run.files, "merged");
}

// The processes' span dumps (one a process that loaded libjouleprof), attributed together as
// any trace is, and written as the run's spans.json; what goes wrong is a warning, since the
// measurement stands without the spans.
void attribute_child_spans(const ChildSpanCapture& capture, RunMeasurement& run) {
  Profile& profile = run.measurement.profile;
  const std::vector<ChildDump> dumps = read_child_dumps(capture.directory, profile.warnings);
  if (dumps.empty()) {
    profile.warnings.push_back(
        "no spans came back from the command (no process wrote a dump: it never loaded "
        "libjouleprof, or it did not exit normally)");
    return;
  }
  const std::vector<int> ranks = ranks_of(dumps);
  if (const Status written =
          write_span_dump(combine_child_dumps(dumps, ranks), run.files.spans.string());
      !written) {
    profile.warnings.push_back("the command's spans could not be kept: " +
                               written.error().message());
    return;
  }
  RecordingAttributionOptions options;
  options.trace_path = run.files.spans.string();
  options.samples_origin = "the run's samples";
  const Result<RecordingAttribution> attributed = attribute_recording(profile, options);
  if (!attributed) {
    if (attributed.error().subject() == ErrorSubject::kNoSpans) {
      profile.warnings.push_back("the command recorded no spans");
    } else {
      profile.warnings.push_back("the command's spans could not be used: " +
                                 attributed.error().message());
    }
    return;
  }
  if (!ranks.empty()) split_into_ranks(dumps, ranks, run);
}

// What the run was asked for, in the profile (run.*, setting.*).
void record_run_options(const RunOptions& options, RunMetadata& meta) {
  // Divided by exact powers of ten, so that a whole number of ns prints as the decimal it is
  // (0.3 ms, not 0.30000000000000004).
  meta.options.run.idle_s = static_cast<double>(options.idle_ns) / 1e9;
  if (options.monitor.interval_ns > 0)
    meta.options.run.interval_ms = static_cast<double>(options.monitor.interval_ns) / 1e6;
  if (!options.monitor.sources.selected.empty())
    meta.options.run.source = fmt::format("{}", fmt::join(options.monitor.sources.selected, ","));
  if (options.monitor.sources.sysfs_root != "/")
    meta.options.run.sysfs_root = options.monitor.sources.sysfs_root;
  for (const auto& [key, value] : options.monitor.sources.settings)
    meta.options.settings[key] = value;
}

// profile.json and samples.csv; when they cannot be written (a full disk, a directory removed
// or replaced during the run), the temporary directory gets them, else the working directory,
// else stderr, and the error says where they went.
Status write_run_files(const Profile& profile, const RunFiles& files) {
  Status written = write_profile_json(profile, files.profile.string());
  if (written) written = write_samples_csv(profile.series, files.samples.string());
  if (written) return written;
  for (const fs::path& rescue : rescue_directories(fmt::format("jouleprof-run-{}", getpid()))) {
    std::error_code ec;
    fs::create_directories(rescue, ec);
    if (write_profile_json(profile, (rescue / "profile.json").string()) &&
        write_samples_csv(profile.series, (rescue / "samples.csv").string())) {
      return Error(written.error().code(),
                   fmt::format("{}; the measurement was written to {} instead",
                               written.error().message(), rescue.string()));
    }
  }
  // No directory takes it: the profile (which holds the samples too) is the last thing said.
  std::cerr << profile_to_json_string(profile) << '\n';
  return Error(written.error().code(),
               fmt::format("{}; neither the temporary nor the working directory could take the "
                           "measurement: its profile.json was written to stderr above",
                           written.error().message()));
}

// The ranks' profiles and their merge, before profile.json, so that a file that cannot be
// written is a warning there.
void write_rank_files(RunMeasurement& run) {
  Profile& profile = run.measurement.profile;
  for (std::size_t i = 0; i < run.ranks.size(); ++i) {
    if (const Status w = write_profile_json(run.ranks[i], run.files.ranks[i].string()); !w)
      profile.warnings.push_back("a rank's profile was not written: " + w.error().message());
  }
  if (!run.merged) return;
  if (const Status w = write_profile_json(*run.merged, run.files.merged.string()); !w) {
    profile.warnings.push_back("the ranks' merged profile was not written: " + w.error().message());
    run.files.merged.clear();
  }
}

// An epoch_begin after the last epoch_end (by time: several processes may report) began an epoch
// the job never ended: its energy is in no epoch, and STEP never sees it.
std::optional<std::string> open_epoch_warning(const std::vector<EpochBoundary>& boundaries,
                                              std::size_t epochs_ended, TimeNs run_end_ns) {
  std::optional<TimeNs> last_begin;
  std::optional<TimeNs> last_end;
  for (const EpochBoundary& b : boundaries) {
    std::optional<TimeNs>& last = b.kind == EpochBoundary::Kind::kBegin ? last_begin : last_end;
    last = last ? std::max(*last, b.t_ns) : b.t_ns;
  }
  if (!last_begin || (last_end && *last_end >= *last_begin)) return std::nullopt;
  return fmt::format(
      "epoch {} began (epoch_begin) {} before the run ended and never ended (no epoch_end after "
      "it): its energy is in no epoch and not in the projection",
      epochs_ended + 1, format_duration(std::max<TimeNs>(0, run_end_ns - *last_begin)));
}

}  // namespace

Result<RunMeasurement> measure_run(const RunOptions& options) {
  const bool observe_running = options.command.empty();
  if (observe_running && !options.monitor.sources.observed) {
    return invalid_input("run", "what to measure", "nothing",
                         "give a command, or the processes to observe");
  }
  MonitorOptions monitor_options = options.monitor;
  const bool spans = options.spans || options.nvtx;
  // Spans weigh by their thread's CPU time: the process source then follows every thread.
  if (spans) monitor_options.sources.settings["processes.threads"] = "1";
  JP_TRY(std::unique_ptr<Monitor> monitor, Monitor::open(monitor_options));
  if (observe_running) {
    // Nothing to wait for when what is observed cannot be read (--cgroup /nonexistent/cg): said
    // now, not after a run that ends only by a signal and shows no share.
    for (const UnavailableSource& u : monitor->unavailable()) {
      if (u.name != process_activity::kSourceName) continue;
      return invalid_input(
          "run", "what to observe", options.monitor.sources.observed->describe(),
          fmt::format("cannot be observed: {} ({})", u.availability.reason, u.availability.fix));
    }
  }
  JP_TRY(RunFiles files, prepare_run_files(options.output));

  CommandMeasurementOptions measurement;
  measurement.argv = options.command;
  measurement.idle_ns = options.idle_ns;
  std::optional<LiveEpochProjector> epochs;
  std::string epoch_file;
  std::vector<std::string> epoch_errors;
  const auto report_epochs = [&](const Result<std::vector<EpochUpdate>>& updates) {
    if (!updates) {
      if (epoch_errors.empty()) epoch_errors.push_back(updates.error().message());
      return;
    }
    if (!options.on_epoch) return;
    for (const EpochUpdate& u : *updates) options.on_epoch(u, epochs->options());
  };
  if (options.epochs) {
    // The job's epoch_end() calls append to this file (named in the child's environment).
    epoch_file = (scratch_directory() / fmt::format("jouleprof-epochs-{}", getpid())).string();
    std::error_code ignored;
    fs::remove(epoch_file, ignored);
    measurement.environment.emplace_back(kEpochFileEnv, epoch_file);
    epochs.emplace(epoch_file, *options.epochs);
  }
  const Monitor& live_monitor = *monitor;
  measurement.on_tick = [&](const LiveStatus& s) {
    if (epochs) report_epochs(epochs->poll(live_monitor, monotonic_now_ns() - s.elapsed_ns));
    if (options.on_status) options.on_status(s);
  };
  // Spans: the child inherits the variables that make it record and write its dump at exit.
  std::optional<ChildSpanCapture> capture;
  if (spans) {
    std::string nvtx_library;
    if (options.nvtx) {
      JP_TRY(nvtx_library, find_nvtx_library());
    }
    const fs::path spans_dir = scratch_directory() / fmt::format("jouleprof-spans-{}", getpid());
    JP_TRY(capture, prepare_child_span_capture(spans_dir.string(), nvtx_library));
    measurement.environment.insert(measurement.environment.end(), capture->environment.begin(),
                                   capture->environment.end());
  }
  Result<CommandMeasurement> measured = observe_running ? measure_observed(*monitor, measurement)
                                                        : measure_command(*monitor, measurement);
  if (!measured) {
    if (observe_running) return measured.error();
    std::error_code ignored;
    if (files.created) fs::remove(files.directory, ignored);  // no empty run left behind
    return Error(measured.error().code(), measured.error().message(), ErrorSubject::kCommandStart);
  }
  RunMeasurement run{std::move(measured).value(), std::move(files)};
  Profile& profile = run.measurement.profile;
  record_cluster_identity(profile);
  if (epochs) {
    report_epochs(epochs->poll(profile.series, profile.meta.begin_ns));  // after the last tick
    std::error_code ignored;
    fs::remove(epoch_file, ignored);
    profile.meta.options.epochs.total = *options.epochs;
    if (epochs->epoch_energies_j().empty()) {
      profile.warnings.push_back(
          fmt::format("--epochs {}: the command reported no epoch end (call "
                      "jouleprof::epoch_end() or jp_epoch_end() after each epoch)",
                      *options.epochs));
    }
    for (const std::string& e : epoch_errors) profile.warnings.push_back("epoch file: " + e);
    if (std::optional<std::string> open = open_epoch_warning(
            epochs->boundaries(), epochs->epoch_energies_j().size(), profile.meta.end_ns)) {
      profile.warnings.push_back(*open);
    }
  }
  profile.meta.grid_intensity_g_per_kwh = options.grid_intensity_g_per_kwh;
  record_run_options(options, profile.meta);
  if (capture) {
    attribute_child_spans(*capture, run);
    std::error_code ec;
    fs::remove_all(capture->directory, ec);
  }
  if (epochs) add_epoch_marks(epochs->boundaries(), profile);
  summarize_epochs(profile);

  write_rank_files(run);
  JP_RETURN_IF_ERROR(write_run_files(profile, run.files));
  if (options.history_db) {
    const Result<std::int64_t> id =
        record_run(*options.history_db, profile, run.files.profile.string(), options.history_tags);
    if (!id) {
      // Marked in the profile on disk too, so that whoever finds it knows to import it.
      profile.warnings.push_back(fmt::format(
          "run not recorded in the history: {}; its profile is written: add it "
          "later with `jouleprof history import {}`",
          id.error().message(), run.files.directory.empty() ? "." : run.files.directory.string()));
      JP_RETURN_IF_ERROR(write_profile_json(profile, run.files.profile.string()));
    }
  }
  return run;
}

}  // namespace jouleprof
