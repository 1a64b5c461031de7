// The run history in SQLite: WAL mode for concurrent readers and writers, IMMEDIATE
// transactions for every write, a busy timeout, and numbered migrations recorded in
// `schema_migrations` (applied inside one transaction, so two processes opening a fresh
// database at once cannot both apply them).
#include <fmt/format.h>
#include <sqlite3.h>

#include <chrono>
#include <filesystem>
#include <optional>
#include <thread>

#include "store/history_backend.hpp"
#include "store/history_schema.hpp"
#include "store/run_queries.hpp"

namespace jouleprof::detail {
namespace {

Error sqlite_error(sqlite3* db, const std::string& path, std::string_view what) {
  const int code = sqlite3_errcode(db);
  const ErrorCode kind = (code == SQLITE_BUSY || code == SQLITE_LOCKED) ? ErrorCode::kUnavailable
                         : code == SQLITE_PERM || code == SQLITE_READONLY
                             ? ErrorCode::kPermissionDenied
                             : ErrorCode::kIo;
  return Error(kind, fmt::format("{}: {}: {}", path, what, sqlite3_errmsg(db)));
}

// A prepared statement, finalised on scope exit.
class SqliteStatement {
 public:
  SqliteStatement(sqlite3* db, const char* sql) {
    sqlite3_prepare_v2(db, sql, -1, &stmt_, nullptr);
  }
  ~SqliteStatement() { sqlite3_finalize(stmt_); }
  SqliteStatement(const SqliteStatement&) = delete;
  SqliteStatement& operator=(const SqliteStatement&) = delete;

  bool ok() const { return stmt_ != nullptr; }
  SqliteStatement& bind(int i, std::int64_t v) {
    sqlite3_bind_int64(stmt_, i, v);
    return *this;
  }
  SqliteStatement& bind(int i, double v) {
    sqlite3_bind_double(stmt_, i, v);
    return *this;
  }
  SqliteStatement& bind(int i, const std::string& v) {
    sqlite3_bind_text(stmt_, i, v.c_str(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
    return *this;
  }
  SqliteStatement& bind(int i, const std::optional<std::string>& v) {
    if (v)
      bind(i, *v);
    else
      sqlite3_bind_null(stmt_, i);
    return *this;
  }
  SqliteStatement& bind(int i, const std::optional<double>& v) {
    if (v)
      sqlite3_bind_double(stmt_, i, *v);
    else
      sqlite3_bind_null(stmt_, i);
    return *this;
  }
  SqliteStatement& bind(int i, const std::optional<int>& v) {
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

Status sqlite_exec_sql(sqlite3* db, const std::string& path, const char* sql) {
  if (sqlite3_exec(db, sql, nullptr, nullptr, nullptr) != SQLITE_OK)
    return sqlite_error(db, path, sql);
  return Status::Ok();
}

// Runs `body` inside BEGIN IMMEDIATE … COMMIT, rolling back when it fails.
template <typename Body>
Status in_sqlite_transaction(sqlite3* db, const std::string& path, Body body) {
  JP_RETURN_IF_ERROR(sqlite_exec_sql(db, path, "BEGIN IMMEDIATE"));
  Status s = body();
  if (!s.ok()) {
    sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
    return s;
  }
  if (sqlite3_exec(db, "COMMIT", nullptr, nullptr, nullptr) != SQLITE_OK) {
    Error e = sqlite_error(db, path, "COMMIT");
    sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
    return e;
  }
  return Status::Ok();
}

Status migrate_sqlite(sqlite3* db, const std::string& path) {
  return in_sqlite_transaction(db, path, [&]() -> Status {
    JP_RETURN_IF_ERROR(sqlite_exec_sql(
        db, path,
        "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, "
        "description TEXT NOT NULL, applied_at_ns INTEGER NOT NULL)"));
    SqliteStatement current(db, "SELECT COALESCE(MAX(version), 0) FROM schema_migrations");
    if (!current.ok() || current.step() != SQLITE_ROW)
      return sqlite_error(db, path, "reading schema_migrations");
    const auto version = static_cast<int>(current.int64(0));
    if (version > kHistorySchemaVersion) {
      return invalid_input(
          path, "schema_migrations.version", std::to_string(version),
          fmt::format("is newer than this jouleprof understands ({}); upgrade jouleprof",
                      kHistorySchemaVersion));
    }
    for (const Migration& m : history_migrations()) {
      if (m.version <= version) continue;
      JP_RETURN_IF_ERROR(sqlite_exec_sql(db, path, m.sqlite_sql));
      SqliteStatement note(
          db,
          "INSERT INTO schema_migrations (version, description, applied_at_ns) VALUES (?, ?, ?)");
      note.bind(1, std::int64_t{m.version})
          .bind(2, std::string(m.description))
          .bind(3, realtime_now_ns());
      if (note.step() != SQLITE_DONE) return sqlite_error(db, path, "recording a migration");
    }
    return Status::Ok();
  });
}

class SqliteHistory final : public HistoryBackend {
 public:
  SqliteHistory(sqlite3* db, std::string path) : db_(db), path_(std::move(path)) {}
  ~SqliteHistory() override { sqlite3_close(db_); }
  SqliteHistory(const SqliteHistory&) = delete;
  SqliteHistory& operator=(const SqliteHistory&) = delete;

  Result<int> schema_version() const override;
  Result<std::int64_t> record(const StoredRun& run) override;
  Result<std::vector<RunRecord>> list(std::size_t limit,
                                      const HistoryFilter& filter) const override;
  Result<RunRecord> run(std::int64_t id) const override;
  Result<std::vector<NodeEnergy>> nodes(std::int64_t id) const override;

 private:
  sqlite3* db_;
  std::string path_;
};

}  // namespace

Result<std::unique_ptr<HistoryBackend>> open_sqlite_history(const std::string& path) {
  std::error_code ec;
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  if (!parent.empty()) std::filesystem::create_directories(parent, ec);
  if (ec) return Error(ErrorCode::kIo, path + ": cannot create its directory: " + ec.message());
  sqlite3* raw = nullptr;
  const int rc =
      sqlite3_open_v2(path.c_str(), &raw, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr);
  auto db = std::make_unique<SqliteHistory>(raw, path);  // closes the handle on every return below
  if (rc != SQLITE_OK) return sqlite_error(raw, path, "cannot open the history database");
  sqlite3_busy_timeout(raw, kHistoryBusyTimeoutMs);
  {
    // Several processes opening a fresh database at once: the switch to WAL can answer BUSY
    // without consulting the busy handler, so it is retried here within the same timeout.
    std::optional<SqliteStatement> wal;
    int step = SQLITE_BUSY;
    for (int waited_ms = 0; step == SQLITE_BUSY || step == SQLITE_LOCKED; waited_ms += 10) {
      if (waited_ms > 0) {
        if (waited_ms > kHistoryBusyTimeoutMs) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
      wal.emplace(raw, "PRAGMA journal_mode=WAL");
      step = wal->ok() ? wal->step() : SQLITE_ERROR;
    }
    if (!wal->ok() || step != SQLITE_ROW) return sqlite_error(raw, path, "switching to WAL");
    if (wal->text(0) != "wal") {
      return Error(ErrorCode::kUnsupported,
                   path + ": the database cannot use WAL mode (journal mode '" + wal->text(0) +
                       "'); is it on a network file system?");
    }
  }
  JP_RETURN_IF_ERROR(sqlite_exec_sql(raw, path, "PRAGMA foreign_keys=ON"));
  JP_RETURN_IF_ERROR(sqlite_exec_sql(raw, path, "PRAGMA synchronous=NORMAL"));
  JP_RETURN_IF_ERROR(migrate_sqlite(raw, path));
  return std::unique_ptr<HistoryBackend>(std::move(db));
}

Result<int> SqliteHistory::schema_version() const {
  SqliteStatement s(db_, "SELECT MAX(version) FROM schema_migrations");
  if (!s.ok() || s.step() != SQLITE_ROW)
    return sqlite_error(db_, path_, "reading schema_migrations");
  return static_cast<int>(s.int64(0));
}

Result<std::int64_t> SqliteHistory::record(const StoredRun& r) {
  std::int64_t id = 0;
  const Status s = in_sqlite_transaction(db_, path_, [&]() -> Status {
    const std::string insert_run = insert_run_sql(kSqliteDialect);
    SqliteStatement run(db_, insert_run.c_str());
    run.bind(1, r.recorded_at_ns).bind(2, r.kind).bind(3, r.host).bind(4, r.rank);
    run.bind(5, r.world_size).bind(6, r.command).bind(7, r.tool_version).bind(8, r.begin_ns);
    run.bind(9, r.end_ns).bind(10, r.exit_code).bind(11, std::int64_t{r.partial ? 1 : 0});
    run.bind(12, r.total_energy_j).bind(13, r.profile_path).bind(14, r.warnings);
    run.bind(15, r.process_energy_j).bind(16, r.observed);
    run.bind(17, r.run_key.empty() ? std::nullopt : std::optional<std::string>(r.run_key));
    run.bind(18, r.tags.label).bind(19, r.tags.branch).bind(20, r.tags.commit);
    run.bind(21, r.total_energy_low_j).bind(22, r.total_energy_high_j);
    const int inserted = run.ok() ? run.step() : SQLITE_ERROR;
    if (inserted != SQLITE_ROW && inserted != SQLITE_DONE)
      return sqlite_error(db_, path_, "recording the run");
    if (inserted == SQLITE_DONE) {
      // Recorded before (a retry or a re-import): the row there is the run.
      SqliteStatement existing(db_, "SELECT id FROM runs WHERE run_key = ?");
      existing.bind(1, r.run_key);
      if (!existing.ok() || existing.step() != SQLITE_ROW)
        return sqlite_error(db_, path_, "finding the run recorded before");
      id = existing.int64(0);
      return Status::Ok();
    }
    id = run.int64(0);  // RETURNING id
    if (run.step() != SQLITE_DONE) return sqlite_error(db_, path_, "recording the run");

    const std::string insert_channel = insert_channel_sql(kSqliteDialect);
    SqliteStatement channel(db_, insert_channel.c_str());
    for (const StoredChannel& c : r.channels) {
      channel.bind(1, id).bind(2, c.channel_id).bind(3, c.device).bind(4, c.domain);
      channel.bind(5, c.parent_id).bind(6, c.provenance).bind(7, c.energy_j);
      channel.bind(8, c.mean_power_w).bind(9, c.process_energy_j);
      if (!channel.ok() || channel.step() != SQLITE_DONE)
        return sqlite_error(db_, path_, "recording a channel");
      channel.reset();
    }
    const std::string insert_node = insert_node_sql(kSqliteDialect);
    SqliteStatement node(db_, insert_node.c_str());
    std::int64_t ord = 0;
    for (const NodeEnergy& n : r.nodes) {
      node.bind(1, id).bind(2, ord++).bind(3, n.path).bind(4, n.energy_j).bind(5, n.self_energy_j);
      node.bind(6, n.time_ns)
          .bind(7, static_cast<std::int64_t>(n.calls))
          .bind(8, std::string(to_string(n.provenance)));
      if (!node.ok() || node.step() != SQLITE_DONE)
        return sqlite_error(db_, path_, "recording a tree node");
      node.reset();
    }
    return Status::Ok();
  });
  if (!s.ok()) return s.error();
  return id;
}

Result<std::vector<RunRecord>> SqliteHistory::list(std::size_t limit,
                                                   const HistoryFilter& filter) const {
  const std::string sql = list_runs_sql(kSqliteDialect);
  SqliteStatement s(db_, sql.c_str());
  if (!s.ok()) return sqlite_error(db_, path_, "listing runs");
  int i = 0;
  for (const std::string& value : list_parameters(filter)) s.bind(++i, value);
  std::vector<RunRecord> runs;
  int rc = SQLITE_ROW;
  while ((limit == 0 || runs.size() < limit) && (rc = s.step()) == SQLITE_ROW) {
    RunRecord r = run_from_row(s);
    if (!filter.provenance || r.provenance == *filter.provenance) runs.push_back(std::move(r));
  }
  if (rc != SQLITE_DONE && rc != SQLITE_ROW) return sqlite_error(db_, path_, "listing runs");
  return runs;
}

Result<RunRecord> SqliteHistory::run(std::int64_t id) const {
  const std::string sql = run_by_id_sql(kSqliteDialect);
  SqliteStatement s(db_, sql.c_str());
  if (!s.ok()) return sqlite_error(db_, path_, "reading a run");
  s.bind(1, id);
  const int rc = s.step();
  if (rc == SQLITE_ROW) return run_from_row(s);
  if (rc == SQLITE_DONE)
    return Error(ErrorCode::kNotFound, fmt::format("{}: no run with id {}", path_, id));
  return sqlite_error(db_, path_, "reading a run");
}

Result<std::vector<NodeEnergy>> SqliteHistory::nodes(std::int64_t id) const {
  SqliteStatement s(
      db_,
      "SELECT path, energy_j, self_energy_j, time_ns, calls, provenance FROM run_nodes "
      "WHERE run_id = ? "
      "ORDER BY ord");
  if (!s.ok()) return sqlite_error(db_, path_, "reading run nodes");
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
  if (rc != SQLITE_DONE) return sqlite_error(db_, path_, "reading run nodes");
  return nodes;
}

}  // namespace jouleprof::detail
