// Run history: every measuring command records its run (metadata, totals, per-node energies and
// the path of its profile file) in one database, so that runs can be listed and compared later
// and CI can check energy budgets. The database is a SQLite file (a path, the default) or a
// PostgreSQL server that a team's CI machines share (a postgresql:// or postgres:// URL, libpq's
// forms: docs/history.md). Both hold the same schema and answer the same calls.
//
//   JP_TRY(const std::string db, jouleprof::default_history_path());
//   auto id = jouleprof::record_run(db, profile, "out/profile.json");
//
// Both are safe with concurrent writers (several jobs recording at once): every write is one
// transaction; SQLite runs in WAL mode and waits for a busy database (kHistoryBusyTimeoutMs).
// Recording is idempotent: a run is keyed by its host, start time, rank and kind (run_key_of), so
// a retried or re-imported run lands once. The schema is versioned; opening an older database
// migrates it.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "jouleprof/profile.hpp"
#include "jouleprof/result.hpp"

namespace jouleprof {

// Newest schema this build writes; `schema_migrations` lists the versions applied to a database.
inline constexpr int kHistorySchemaVersion = 4;
// How long a writer waits for another writer's transaction before giving up.
inline constexpr int kHistoryBusyTimeoutMs = 30'000;

// What a run is tagged with in the history, so that budgets can compare it with the runs of a
// branch or a label (`run --label`, and the branch and commit of a CI job:
// run_tags_from_environment). Empty fields are untagged.
struct RunTags {
  std::string label;
  std::string branch;
  std::string commit;
};
// `label` with the branch and commit the CI environment names: the branch from GITHUB_HEAD_REF
// (a pull request's source), GITHUB_REF_NAME, CI_COMMIT_BRANCH, CI_COMMIT_REF_NAME (GitLab),
// BRANCH_NAME or GIT_BRANCH (Jenkins); the commit from GITHUB_SHA, CI_COMMIT_SHA or GIT_COMMIT;
// the first one set of each.
RunTags run_tags_from_environment(std::string label);

// One recorded run, as `jouleprof history` lists it.
struct RunRecord {
  std::int64_t id = 0;
  TimeNs recorded_at_realtime_ns = 0;  // when it was recorded (wall clock)
  std::string kind;                    // run, profile, measure, attribute, merge
  std::string host;
  std::optional<int> rank;
  std::optional<int> world_size;
  std::string command;  // arguments joined by spaces
  std::string tool_version;
  TimeNs duration_ns = 0;
  std::optional<int> exit_code;
  bool partial = false;
  double total_energy_j = 0.0;  // see energy_total_of(): the machine's figure
  // The observed processes' attributed part of it (Profile::total_process_energy_j), and who they
  // were; absent for runs that observed no processes (and runs recorded before schema 2).
  std::optional<double> process_energy_j;
  std::string observed;
  std::string profile_path;  // absolute path of the profile file; empty when none was written
  std::size_t warnings = 0;
  // Where its total came from (Profile::total_provenance: the least direct of its top-level
  // channels, else its tree root's), derived from the stored channels.
  Provenance provenance = Provenance::kMeasured;
  // run_key_of(its profile); empty for runs recorded before schema 3.
  std::string run_key;
  RunTags tags;  // empty for runs recorded before schema 4
  // The 95 % interval of total_energy_j (Profile::total_energy_band), when its profile had one.
  std::optional<double> total_energy_low_j;
  std::optional<double> total_energy_high_j;
  // What measured it: its top-level channel ids, sorted and comma-separated.
  std::string channels;
};

// Which runs `list` returns; empty fields match every run.
struct HistoryFilter {
  std::string host;              // exactly this host
  std::string command_contains;  // the command (arguments joined by spaces) contains this
  std::string command;           // exactly this command
  std::string branch;            // exactly this branch
  std::string label;             // exactly this label
  std::string commit;            // exactly this commit
  std::string branch_or_label;   // this branch or this label (a budget's baseline)
  std::optional<Provenance> provenance;
};

// One node of a run's breakdown tree. `path` is relative to the root ("" = the root itself,
// "train_step/forward"), so that two runs whose roots are named differently still line up.
// Sibling nodes with the same name are summed into one path.
struct NodeEnergy {
  std::string path;
  double energy_j = 0.0;
  double self_energy_j = 0.0;
  TimeNs time_ns = 0;
  std::uint64_t calls = 0;
  Provenance provenance = Provenance::kMeasured;
};

// A profile's total: its top-level channels' energy, or its tree's root when it has no channel
// summaries (e.g. an imported or predicted profile).
double energy_total_of(const Profile& profile);
// The tree as NodeEnergy rows in pre-order (empty without a tree).
std::vector<NodeEnergy> node_energies_of(const Profile& profile);
// What identifies one run across machines and retries: "host/start/rank/kind", the start as
// realtime nanoseconds (the anchor's mapping of begin_ns). Two runs on one host cannot start in
// the same nanosecond, so it needs no process id (which the profile does not carry). Empty when the
// profile has no realtime anchor: such a run is recorded each time.
std::string run_key_of(const Profile& profile);

// Whether `location` names a PostgreSQL server (postgresql:// or postgres://) rather than a
// SQLite file.
bool is_postgresql_url(std::string_view location);
// `location` fit to print: a URL's password (user:PASSWORD@ or password=PASSWORD) becomes "***";
// a path is returned as it is.
std::string redact_history_location(std::string_view location);

namespace detail {
class HistoryBackend;
}  // namespace detail

class HistoryDb {
 public:
  // Opens (creating the file and its directory when missing; connecting to the server for a URL)
  // and migrates to the current schema. Errors name the location with its password redacted.
  static Result<HistoryDb> open(const std::string& location);
  // For readers (listing, comparing): a missing SQLite file is an error, not a new empty one.
  static Result<HistoryDb> open_existing(const std::string& location);
  ~HistoryDb();
  HistoryDb(HistoryDb&& other) noexcept;
  HistoryDb& operator=(HistoryDb&& other) noexcept;
  HistoryDb(const HistoryDb&) = delete;
  HistoryDb& operator=(const HistoryDb&) = delete;

  // The location, fit to print (redact_history_location).
  const std::string& path() const { return path_; }
  Result<int> schema_version() const;

  // Records one run; returns its id. A run already there (same run_key_of) is not recorded again:
  // its existing id is returned (and its tags are kept).
  Result<std::int64_t> record(const Profile& profile, const std::string& profile_path,
                              const RunTags& tags = {});
  // Newest first; limit 0 = all.
  Result<std::vector<RunRecord>> list(std::size_t limit, const HistoryFilter& filter = {}) const;
  // A not-found error naming the id when there is no such run.
  Result<RunRecord> run(std::int64_t id) const;
  Result<std::vector<NodeEnergy>> nodes(std::int64_t id) const;

 private:
  HistoryDb(std::unique_ptr<detail::HistoryBackend> backend, std::string path);
  std::unique_ptr<detail::HistoryBackend> backend_;
  std::string path_;
};

// The database used when none is named: $JOULEPROF_DB (a path or a PostgreSQL URL), else
// $XDG_DATA_HOME/jouleprof/history.db, else $HOME/.local/share/jouleprof/history.db. With none of
// the three set, an error that says so (kNotFound): a history in whatever directory the command ran
// in would be lost there.
Result<std::string> default_history_path();
// `given` (a --db flag) when it is not empty, else default_history_path().
Result<std::string> history_path(const std::string& given);

// Opens `db_path` and records one run: what run/profile/measure call after writing a profile.
Result<std::int64_t> record_run(const std::string& db_path, const Profile& profile,
                                const std::string& profile_path, const RunTags& tags = {});

}  // namespace jouleprof
