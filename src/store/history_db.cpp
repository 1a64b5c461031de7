// The run history in SQLite: WAL mode for concurrent readers and writers, IMMEDIATE
// transactions for every write, a busy timeout, and numbered migrations recorded in
// `schema_migrations` (applied inside one transaction, so two processes opening a fresh
// database at once cannot both apply them).
#include <fmt/format.h>
#include <sqlite3.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <optional>
#include <thread>

#include "jouleprof/history.hpp"

namespace jouleprof {
namespace {

struct Migration {
  int version;
  const char* description;
  const char* sql;
};

// Append-only: a released migration never changes; a new schema is a new entry.
constexpr Migration kMigrations[] = {
    {1, "runs, their channel totals and per-node energies", R"sql(
CREATE TABLE runs (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  recorded_at_ns INTEGER NOT NULL,
  kind TEXT NOT NULL,
  host TEXT NOT NULL,
  rank INTEGER,
  world_size INTEGER,
  command TEXT NOT NULL,
  tool_version TEXT NOT NULL,
  begin_ns INTEGER NOT NULL,
  end_ns INTEGER NOT NULL,
  exit_code INTEGER,
  partial INTEGER NOT NULL,
  total_energy_j REAL NOT NULL,
  profile_path TEXT NOT NULL,
  warnings INTEGER NOT NULL
);
CREATE TABLE run_channels (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  channel_id TEXT NOT NULL,
  device TEXT NOT NULL,
  domain TEXT NOT NULL,
  parent_id TEXT NOT NULL,
  provenance TEXT NOT NULL,
  energy_j REAL NOT NULL,
  mean_power_w REAL NOT NULL,
  PRIMARY KEY (run_id, channel_id)
);
CREATE TABLE run_nodes (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  ord INTEGER NOT NULL,
  path TEXT NOT NULL,
  energy_j REAL NOT NULL,
  self_energy_j REAL NOT NULL,
  time_ns INTEGER NOT NULL,
  calls INTEGER NOT NULL,
  provenance TEXT NOT NULL,
  PRIMARY KEY (run_id, path)
);
CREATE INDEX runs_by_time ON runs(recorded_at_ns);
)sql"},
    {2, "the observed processes' attributed energy beside the machine's", R"sql(
ALTER TABLE runs ADD COLUMN process_energy_j REAL;
ALTER TABLE runs ADD COLUMN observed TEXT NOT NULL DEFAULT '';
ALTER TABLE run_channels ADD COLUMN process_energy_j REAL;
)sql"},
};

Error db_error(sqlite3* db, const std::string& path, std::string_view what) {
  const int code = sqlite3_errcode(db);
  const ErrorCode kind = (code == SQLITE_BUSY || code == SQLITE_LOCKED) ? ErrorCode::kUnavailable
                         : code == SQLITE_PERM || code == SQLITE_READONLY
                             ? ErrorCode::kPermissionDenied
                             : ErrorCode::kIo;
  return Error(kind, fmt::format("{}: {}: {}", path, what, sqlite3_errmsg(db)));
}

// A prepared statement, finalised on scope exit.
class Statement {
 public:
  Statement(sqlite3* db, const char* sql) { sqlite3_prepare_v2(db, sql, -1, &stmt_, nullptr); }
  ~Statement() { sqlite3_finalize(stmt_); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  bool ok() const { return stmt_ != nullptr; }
  Statement& bind(int i, std::int64_t v) {
    sqlite3_bind_int64(stmt_, i, v);
    return *this;
  }
  Statement& bind(int i, double v) {
    sqlite3_bind_double(stmt_, i, v);
    return *this;
  }
  Statement& bind(int i, const std::string& v) {
    sqlite3_bind_text(stmt_, i, v.c_str(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
    return *this;
  }
  Statement& bind(int i, const std::optional<double>& v) {
    if (v)
      sqlite3_bind_double(stmt_, i, *v);
    else
      sqlite3_bind_null(stmt_, i);
    return *this;
  }
  Statement& bind(int i, const std::optional<int>& v) {
    if (v)
      sqlite3_bind_int64(stmt_, i, *v);
    else
      sqlite3_bind_null(stmt_, i);
    return *this;
  }
  int step() { return sqlite3_step(stmt_); }
  void reset() {
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
  }

  std::int64_t int64(int col) const { return sqlite3_column_int64(stmt_, col); }
  double real(int col) const { return sqlite3_column_double(stmt_, col); }
  std::string text(int col) const {
    const unsigned char* t = sqlite3_column_text(stmt_, col);
    return t ? reinterpret_cast<const char*>(t) : "";
  }
  std::optional<double> optional_real(int col) const {
    if (sqlite3_column_type(stmt_, col) == SQLITE_NULL) return std::nullopt;
    return sqlite3_column_double(stmt_, col);
  }
  std::optional<int> optional_int(int col) const {
    if (sqlite3_column_type(stmt_, col) == SQLITE_NULL) return std::nullopt;
    return static_cast<int>(sqlite3_column_int64(stmt_, col));
  }

 private:
  sqlite3_stmt* stmt_ = nullptr;
};

Status exec(sqlite3* db, const std::string& path, const char* sql) {
  if (sqlite3_exec(db, sql, nullptr, nullptr, nullptr) != SQLITE_OK) return db_error(db, path, sql);
  return Status::Ok();
}

// Runs `body` inside BEGIN IMMEDIATE … COMMIT, rolling back when it fails.
template <typename Body>
Status in_write_transaction(sqlite3* db, const std::string& path, Body body) {
  JP_RETURN_IF_ERROR(exec(db, path, "BEGIN IMMEDIATE"));
  Status s = body();
  if (!s.ok()) {
    sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
    return s;
  }
  if (sqlite3_exec(db, "COMMIT", nullptr, nullptr, nullptr) != SQLITE_OK) {
    Error e = db_error(db, path, "COMMIT");
    sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
    return e;
  }
  return Status::Ok();
}

Status migrate(sqlite3* db, const std::string& path) {
  return in_write_transaction(db, path, [&]() -> Status {
    JP_RETURN_IF_ERROR(
        exec(db, path,
             "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, "
             "description TEXT NOT NULL, applied_at_ns INTEGER NOT NULL)"));
    Statement current(db, "SELECT COALESCE(MAX(version), 0) FROM schema_migrations");
    if (!current.ok() || current.step() != SQLITE_ROW)
      return db_error(db, path, "reading schema_migrations");
    const auto version = static_cast<int>(current.int64(0));
    if (version > kHistorySchemaVersion) {
      return invalid_input(
          path, "schema_migrations.version", std::to_string(version),
          fmt::format("is newer than this jouleprof understands ({}); upgrade jouleprof",
                      kHistorySchemaVersion));
    }
    for (const Migration& m : kMigrations) {
      if (m.version <= version) continue;
      JP_RETURN_IF_ERROR(exec(db, path, m.sql));
      Statement note(
          db,
          "INSERT INTO schema_migrations (version, description, applied_at_ns) VALUES (?, ?, ?)");
      note.bind(1, std::int64_t{m.version})
          .bind(2, std::string(m.description))
          .bind(3, realtime_now_ns());
      if (note.step() != SQLITE_DONE) return db_error(db, path, "recording a migration");
    }
    return Status::Ok();
  });
}

// The last two columns give the run's provenance: its top-level channels' and its tree root's.
constexpr const char* kRunColumns =
    "id, recorded_at_ns, kind, host, rank, world_size, command, tool_version, begin_ns, end_ns, "
    "exit_code, partial, total_energy_j, profile_path, warnings, process_energy_j, observed, "
    "(SELECT group_concat(provenance, ',') FROM run_channels c WHERE c.run_id = runs.id AND "
    "c.parent_id = ''), "
    "(SELECT provenance FROM run_nodes n WHERE n.run_id = runs.id AND n.path = '')";

// Profile::total_provenance over what the database holds: the least direct of the top-level
// channels' provenances, else the tree root's, else measured.
Provenance stored_provenance(const std::string& channels, const std::string& root) {
  std::optional<Provenance> least_direct;
  std::size_t begin = 0;
  while (begin < channels.size()) {
    const std::size_t end = std::min(channels.find(',', begin), channels.size());
    if (const auto p = provenance_from_string(channels.substr(begin, end - begin)))
      least_direct = least_direct ? less_direct(*least_direct, *p) : *p;
    begin = end + 1;
  }
  if (least_direct) return *least_direct;
  return provenance_from_string(root).value_or(Provenance::kMeasured);
}

RunRecord run_from_row(const Statement& s) {
  RunRecord r;
  r.id = s.int64(0);
  r.recorded_at_realtime_ns = s.int64(1);
  r.kind = s.text(2);
  r.host = s.text(3);
  r.rank = s.optional_int(4);
  r.world_size = s.optional_int(5);
  r.command = s.text(6);
  r.tool_version = s.text(7);
  r.duration_ns = s.int64(9) - s.int64(8);
  r.exit_code = s.optional_int(10);
  r.partial = s.int64(11) != 0;
  r.total_energy_j = s.real(12);
  r.profile_path = s.text(13);
  r.warnings = static_cast<std::size_t>(s.int64(14));
  r.process_energy_j = s.optional_real(15);
  r.observed = s.text(16);
  r.provenance = stored_provenance(s.text(17), s.text(18));
  return r;
}

}  // namespace

Result<HistoryDb> HistoryDb::open_existing(const std::string& path) {
  std::error_code ec;
  const std::filesystem::file_status status = std::filesystem::status(path, ec);
  if (!std::filesystem::exists(status)) {
    return Error(ErrorCode::kNotFound,
                 path + ": no run history there (nothing has been recorded in this database)");
  }
  if (std::filesystem::is_directory(status)) {
    return Error(ErrorCode::kInvalidInput, path + ": is a directory, not a history database");
  }
  return open(path);
}

Result<HistoryDb> HistoryDb::open(const std::string& path) {
  std::error_code ec;
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  if (!parent.empty()) std::filesystem::create_directories(parent, ec);
  if (ec) return Error(ErrorCode::kIo, path + ": cannot create its directory: " + ec.message());
  sqlite3* raw = nullptr;
  const int rc =
      sqlite3_open_v2(path.c_str(), &raw, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr);
  HistoryDb db(raw, path);  // closes the handle on every return below
  if (rc != SQLITE_OK) return db_error(raw, path, "cannot open the history database");
  sqlite3_busy_timeout(raw, kHistoryBusyTimeoutMs);
  {
    // Several processes opening a fresh database at once: the switch to WAL can answer BUSY
    // without consulting the busy handler, so it is retried here within the same timeout.
    std::optional<Statement> wal;
    int step = SQLITE_BUSY;
    for (int waited_ms = 0; step == SQLITE_BUSY || step == SQLITE_LOCKED; waited_ms += 10) {
      if (waited_ms > 0) {
        if (waited_ms > kHistoryBusyTimeoutMs) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
      wal.emplace(raw, "PRAGMA journal_mode=WAL");
      step = wal->ok() ? wal->step() : SQLITE_ERROR;
    }
    if (!wal->ok() || step != SQLITE_ROW) return db_error(raw, path, "switching to WAL");
    if (wal->text(0) != "wal") {
      return Error(ErrorCode::kUnsupported,
                   path + ": the database cannot use WAL mode (journal mode '" + wal->text(0) +
                       "'); is it on a network file system?");
    }
  }
  JP_RETURN_IF_ERROR(exec(raw, path, "PRAGMA foreign_keys=ON"));
  JP_RETURN_IF_ERROR(exec(raw, path, "PRAGMA synchronous=NORMAL"));
  JP_RETURN_IF_ERROR(migrate(raw, path));
  return db;
}

HistoryDb::~HistoryDb() {
  if (db_ != nullptr) sqlite3_close(db_);
}

HistoryDb::HistoryDb(HistoryDb&& other) noexcept : db_(other.db_), path_(std::move(other.path_)) {
  other.db_ = nullptr;
}

HistoryDb& HistoryDb::operator=(HistoryDb&& other) noexcept {
  if (this != &other) {
    if (db_ != nullptr) sqlite3_close(db_);
    db_ = other.db_;
    path_ = std::move(other.path_);
    other.db_ = nullptr;
  }
  return *this;
}

Result<int> HistoryDb::schema_version() const {
  Statement s(db_, "SELECT MAX(version) FROM schema_migrations");
  if (!s.ok() || s.step() != SQLITE_ROW) return db_error(db_, path_, "reading schema_migrations");
  return static_cast<int>(s.int64(0));
}

Result<std::int64_t> HistoryDb::record(const Profile& profile, const std::string& profile_path) {
  std::string command;
  for (const std::string& a : profile.meta.command) command += (command.empty() ? "" : " ") + a;
  std::string stored_path;
  if (!profile_path.empty()) {
    std::error_code ec;
    const auto absolute = std::filesystem::absolute(profile_path, ec);
    stored_path = ec ? profile_path : absolute.lexically_normal().string();
  }
  std::int64_t id = 0;
  const Status s = in_write_transaction(db_, path_, [&]() -> Status {
    Statement run(db_,
                  "INSERT INTO runs (recorded_at_ns, kind, host, rank, world_size, command, "
                  "tool_version, begin_ns, "
                  "end_ns, exit_code, partial, total_energy_j, profile_path, warnings, "
                  "process_energy_j, observed) "
                  "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
    const RunMetadata& m = profile.meta;
    run.bind(1, realtime_now_ns())
        .bind(2, m.kind)
        .bind(3, m.host)
        .bind(4, m.rank)
        .bind(5, m.world_size);
    run.bind(6, command)
        .bind(7, m.tool_version)
        .bind(8, m.begin_ns)
        .bind(9, m.end_ns)
        .bind(10, m.exit_code);
    run.bind(11, std::int64_t{m.partial ? 1 : 0})
        .bind(12, energy_total_of(profile))
        .bind(13, stored_path);
    run.bind(14, static_cast<std::int64_t>(profile.warnings.size()));
    run.bind(15, profile.total_process_energy_j())
        .bind(16, m.options.process.observed.value_or(std::string()));
    if (!run.ok() || run.step() != SQLITE_DONE) return db_error(db_, path_, "recording the run");
    id = sqlite3_last_insert_rowid(db_);

    Statement channel(
        db_,
        "INSERT INTO run_channels (run_id, channel_id, device, domain, parent_id, provenance, "
        "energy_j, "
        "mean_power_w, process_energy_j) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (run_id, "
        "channel_id) DO UPDATE SET energy_j = energy_j + excluded.energy_j, process_energy_j = "
        "process_energy_j + excluded.process_energy_j");
    for (const ChannelSummary& c : profile.channels) {
      const Series* series = profile.find_series(c.channel_id);
      const Channel info = series ? series->channel() : Channel{};
      channel.bind(1, id)
          .bind(2, c.channel_id)
          .bind(3, info.device)
          .bind(4, info.domain)
          .bind(5, info.parent_id);
      channel.bind(6, std::string(to_string(c.provenance)))
          .bind(7, c.energy_j)
          .bind(8, c.mean_power_w)
          .bind(9, c.process ? std::optional<double>(c.process->energy_j) : std::nullopt);
      if (!channel.ok() || channel.step() != SQLITE_DONE)
        return db_error(db_, path_, "recording a channel");
      channel.reset();
    }
    Statement node(db_,
                   "INSERT INTO run_nodes (run_id, ord, path, energy_j, self_energy_j, time_ns, "
                   "calls, provenance) "
                   "VALUES (?, ?, ?, ?, ?, ?, ?, ?)");
    std::int64_t ord = 0;
    for (const NodeEnergy& n : node_energies_of(profile)) {
      node.bind(1, id).bind(2, ord++).bind(3, n.path).bind(4, n.energy_j).bind(5, n.self_energy_j);
      node.bind(6, n.time_ns)
          .bind(7, static_cast<std::int64_t>(n.calls))
          .bind(8, std::string(to_string(n.provenance)));
      if (!node.ok() || node.step() != SQLITE_DONE)
        return db_error(db_, path_, "recording a tree node");
      node.reset();
    }
    return Status::Ok();
  });
  if (!s.ok()) return s.error();
  return id;
}

Result<std::vector<RunRecord>> HistoryDb::list(std::size_t limit,
                                               const HistoryFilter& filter) const {
  // Host and command are filtered by SQLite; the provenance, derived per row, here (so the limit
  // counts matching runs).
  const std::string sql = fmt::format(
      "SELECT {} FROM runs WHERE (?1 = '' OR host = ?1) AND (?2 = '' OR instr(command, ?2) > 0) "
      "ORDER BY id DESC",
      kRunColumns);
  Statement s(db_, sql.c_str());
  if (!s.ok()) return db_error(db_, path_, "listing runs");
  s.bind(1, filter.host).bind(2, filter.command_contains);
  std::vector<RunRecord> runs;
  int rc = SQLITE_ROW;
  while ((limit == 0 || runs.size() < limit) && (rc = s.step()) == SQLITE_ROW) {
    RunRecord r = run_from_row(s);
    if (!filter.provenance || r.provenance == *filter.provenance) runs.push_back(std::move(r));
  }
  if (rc != SQLITE_DONE && rc != SQLITE_ROW) return db_error(db_, path_, "listing runs");
  return runs;
}

Result<RunRecord> HistoryDb::run(std::int64_t id) const {
  const std::string sql = fmt::format("SELECT {} FROM runs WHERE id = ?", kRunColumns);
  Statement s(db_, sql.c_str());
  if (!s.ok()) return db_error(db_, path_, "reading a run");
  s.bind(1, id);
  const int rc = s.step();
  if (rc == SQLITE_ROW) return run_from_row(s);
  if (rc == SQLITE_DONE)
    return Error(ErrorCode::kNotFound, fmt::format("{}: no run with id {}", path_, id));
  return db_error(db_, path_, "reading a run");
}

Result<std::vector<NodeEnergy>> HistoryDb::nodes(std::int64_t id) const {
  Statement s(db_,
              "SELECT path, energy_j, self_energy_j, time_ns, calls, provenance FROM run_nodes "
              "WHERE run_id = ? "
              "ORDER BY ord");
  if (!s.ok()) return db_error(db_, path_, "reading run nodes");
  s.bind(1, id);
  std::vector<NodeEnergy> nodes;
  int rc = SQLITE_ROW;
  while ((rc = s.step()) == SQLITE_ROW) {
    const auto provenance = provenance_from_string(s.text(5));
    if (!provenance) {
      return invalid_input(path_, "run_nodes.provenance", s.text(5), "is not a provenance name");
    }
    nodes.push_back(NodeEnergy{s.text(0), s.real(1), s.real(2), s.int64(3),
                               static_cast<std::uint64_t>(s.int64(4)), *provenance});
  }
  if (rc != SQLITE_DONE) return db_error(db_, path_, "reading run nodes");
  return nodes;
}

}  // namespace jouleprof
