// The `run` job: a command — or processes already running — measured from start to end, as one
// library call. `jouleprof run` parses its flags into these options and renders the result; a C++
// user gets the same profile, files and history row from the same options.
//
//   jouleprof::RunOptions options;
//   options.command = {"python3", "train.py"};
//   options.epochs = 10;                               // live STEP projection from epoch ends
//   JP_TRY(options.history_db, jouleprof::default_history_path());
//   JP_TRY(jouleprof::RunMeasurement run, jouleprof::measure_run(options));
//   // run.measurement.profile: series, channels, epochs, (with spans) the tree;
//   // run.files.profile: where profile.json went; run.measurement.exit_code: the command's
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "jouleprof/command_measurement.hpp"
#include "jouleprof/history.hpp"
#include "jouleprof/live_epochs.hpp"
#include "jouleprof/monitor.hpp"
#include "jouleprof/result.hpp"

namespace jouleprof {

struct RunOptions {
  // Sources, poll interval and the process-share rule. With `command` empty,
  // monitor.sources.observed says what is observed (a process tree, a cgroup) until it ends or a
  // signal; otherwise the command's own process tree is.
  MonitorOptions monitor;
  std::vector<std::string> command;
  TimeNs idle_ns = 0;  // an idle baseline measured before the command
  // The command trains for this many epochs and reports each end (jouleprof::epoch_end(),
  // jp_epoch_end()): each epoch's energy and the STEP projection as they come (on_epoch).
  std::optional<int> epochs;
  bool spans = false;  // the spans the command records through libjouleprof, attributed
  bool nvtx = false;   // … and its NVTX ranges (implies spans)
  std::optional<double> grid_intensity_g_per_kwh;
  // A directory for profile.json, samples.csv and spans.json, or a FILE.json for the profile
  // (FILE.samples.csv, FILE.spans.json beside it); "": ./jouleprof-runs/<UTC time>.
  std::string output;
  // The run history to record the run in (default_history_path() for the user's); none: not
  // recorded. A history that cannot be written (a server down) is a warning in the profile,
  // written to its file too, that says how to add the run later (`jouleprof history import`).
  std::optional<std::string> history_db;
  // What the run is tagged with there (run_tags_from_environment for a CI job's branch and commit).
  RunTags history_tags;
  // Called about every 250 ms while the command runs, and after each epoch end.
  std::function<void(const LiveStatus&)> on_status;
  std::function<void(const EpochUpdate&, const StepOptions&)> on_epoch;
};

// Where a run's files went.
struct RunFiles {
  std::filesystem::path directory;
  std::filesystem::path profile;
  std::filesystem::path samples;
  std::filesystem::path spans;
  // With spans from two or more ranks: a profile per rank (rank-<N>.json, or FILE.rank-<N>.json)
  // and their merge (merged.json, FILE.merged.json), as `jouleprof merge` makes it.
  std::vector<std::filesystem::path> ranks = {};
  std::filesystem::path merged = {};
  bool created = false;  // the directory, by this run
};

struct RunMeasurement {
  CommandMeasurement measurement;  // the profile, the command's exit code and how it ended
  RunFiles files;
  // The ranks' profiles and their merge, when the command's spans came from several ranks (a
  // launcher's local ranks, docs/cluster.md); the run's own tree has a [rank N] node each.
  std::vector<Profile> ranks = {};
  std::optional<Profile> merged = std::nullopt;
};

// Errors: options that name nothing (or two things) to measure; sources that cannot open; an
// --output that cannot be written (checked before the command starts); a command that cannot be
// started (ErrorSubject::kCommandStart; its code kNotFound when it does not exist), which leaves
// no empty run directory behind; and a profile that cannot be written, in which case the
// measurement is written to a temporary directory that the message names.
Result<RunMeasurement> measure_run(const RunOptions& options);

}  // namespace jouleprof
