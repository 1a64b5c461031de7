// The run history on a PostgreSQL server, through libpq: the schema of history_schema.hpp,
// migrated on first connect under a transaction-scoped advisory lock (so CI jobs connecting to a
// fresh database at once apply each migration once), every write one transaction, and a run
// inserted with ON CONFLICT (run_key) DO NOTHING, so a retried insert lands once. Parameters and
// results travel as text; numbers are written with 17 significant digits and read back through
// core/parse.hpp.
#include <fmt/format.h>
#include <libpq-fe.h>

#include <array>
#include <optional>

#include "core/parse.hpp"
#include "store/history_backend.hpp"
#include "store/history_schema.hpp"
#include "store/run_queries.hpp"

namespace jouleprof::detail {
namespace {

// The key of pg_advisory_xact_lock that serialises migrations: any fixed number no other
// application on the server uses ("jouleprf" in ASCII).
constexpr std::int64_t kMigrationLockKey = 0x6a6f756c65707266;
// How long connecting may take when the URL does not say (libpq waits forever by default).
constexpr const char* kConnectTimeoutS = "10";

// libpq's messages end in a newline and continue on tab-indented lines: one line for the user.
std::string one_line(const char* message) {
  std::string out;
  for (const char* c = message; c != nullptr && *c != '\0'; ++c) {
    if (*c == '\n' || *c == '\t') {
      if (!out.empty() && out.back() != ' ') out += ' ';
    } else {
      out += *c;
    }
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

// A query's result, cleared on scope exit.
class PgResult {
 public:
  explicit PgResult(PGresult* result) : result_(result) {}
  ~PgResult() { PQclear(result_); }
  PgResult(PgResult&& other) noexcept : result_(other.result_) { other.result_ = nullptr; }
  PgResult& operator=(PgResult&&) = delete;
  PgResult(const PgResult&) = delete;
  PgResult& operator=(const PgResult&) = delete;

  const PGresult* raw() const { return result_; }
  int rows() const { return PQntuples(result_); }
  bool is_null(int row, int col) const { return PQgetisnull(result_, row, col) != 0; }
  std::string text(int row, int col) const { return PQgetvalue(result_, row, col); }
  std::int64_t int64(int row, int col) const {
    return to_int64(PQgetvalue(result_, row, col)).value_or(0);
  }
  double real(int row, int col) const {
    return to_number(PQgetvalue(result_, row, col)).value_or(0.0);
  }
  std::optional<double> optional_real(int row, int col) const {
    if (is_null(row, col)) return std::nullopt;
    return real(row, col);
  }
  std::optional<int> optional_int(int row, int col) const {
    if (is_null(row, col)) return std::nullopt;
    return static_cast<int>(int64(row, col));
  }

 private:
  PGresult* result_;
};

// One row of a result, read the way run_from_row reads a row.
struct PgRow {
  const PgResult& result;
  int row;
  std::int64_t int64(int col) const { return result.int64(row, col); }
  double real(int col) const { return result.real(row, col); }
  std::string text(int col) const { return result.text(row, col); }
  std::optional<int> optional_int(int col) const { return result.optional_int(row, col); }
  std::optional<double> optional_real(int col) const { return result.optional_real(row, col); }
};

// Text parameters of one statement; nullopt is SQL NULL.
class PgParams {
 public:
  PgParams& add(const std::string& v) {
    values_.emplace_back(v);
    return *this;
  }
  PgParams& add(std::int64_t v) { return add(std::to_string(v)); }
  PgParams& add(double v) { return add(fmt::format("{:.17g}", v)); }
  PgParams& add(const std::optional<double>& v) {
    if (v) return add(*v);
    values_.emplace_back(std::nullopt);
    return *this;
  }
  PgParams& add(const std::optional<int>& v) {
    if (v) return add(std::int64_t{*v});
    values_.emplace_back(std::nullopt);
    return *this;
  }
  PgParams& add_key(const std::string& key) {
    if (!key.empty()) return add(key);
    values_.emplace_back(std::nullopt);
    return *this;
  }
  std::vector<const char*> pointers() const {
    std::vector<const char*> out;
    for (const std::optional<std::string>& v : values_) out.push_back(v ? v->c_str() : nullptr);
    return out;
  }

 private:
  std::vector<std::optional<std::string>> values_;
};

class PostgresHistory final : public HistoryBackend {
 public:
  PostgresHistory(PGconn* conn, std::string shown) : conn_(conn), shown_(std::move(shown)) {}
  ~PostgresHistory() override { PQfinish(conn_); }
  PostgresHistory(const PostgresHistory&) = delete;
  PostgresHistory& operator=(const PostgresHistory&) = delete;

  Status migrate();
  Result<int> schema_version() const override;
  Result<std::int64_t> record(const StoredRun& run) override;
  Result<std::vector<RunRecord>> list(std::size_t limit,
                                      const HistoryFilter& filter) const override;
  Result<RunRecord> run(std::int64_t id) const override;
  Result<std::vector<NodeEnergy>> nodes(std::int64_t id) const override;

 private:
  Error error(std::string_view what) const {
    const ErrorCode code =
        PQstatus(conn_) == CONNECTION_OK ? ErrorCode::kIo : ErrorCode::kUnavailable;
    return Error(code, fmt::format("{}: {}: {}", shown_, what, one_line(PQerrorMessage(conn_))));
  }
  // A statement without parameters, or several separated by ';' (a migration).
  Status exec(const char* sql, std::string_view what) const {
    const PgResult r(PQexec(conn_, sql));
    const ExecStatusType status = PQresultStatus(r.raw());
    if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) return error(what);
    return Status::Ok();
  }
  Result<PgResult> query(const char* sql, const PgParams& params, std::string_view what) const {
    const std::vector<const char*> values = params.pointers();
    PgResult r(PQexecParams(conn_, sql, static_cast<int>(values.size()), nullptr, values.data(),
                            nullptr, nullptr, 0));
    const ExecStatusType status = PQresultStatus(r.raw());
    if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) return error(what);
    return r;
  }
  Status command(const char* sql, const PgParams& params, std::string_view what) const {
    const Result<PgResult> r = query(sql, params, what);
    if (!r.ok()) return r.error();
    return Status::Ok();
  }
  // Runs `body` inside BEGIN … COMMIT, rolling back when it fails.
  template <typename Body>
  Status in_transaction(Body body) {
    JP_RETURN_IF_ERROR(exec("BEGIN", "BEGIN"));
    Status s = body();
    if (!s.ok()) {
      PQclear(PQexec(conn_, "ROLLBACK"));
      return s;
    }
    return exec("COMMIT", "COMMIT");
  }

  PGconn* conn_;
  std::string shown_;
};

Status PostgresHistory::migrate() {
  return in_transaction([&]() -> Status {
    PgParams lock;
    lock.add(kMigrationLockKey);
    JP_RETURN_IF_ERROR(command("SELECT pg_advisory_xact_lock($1::bigint)", lock,
                               "waiting for the migration lock"));
    JP_RETURN_IF_ERROR(
        exec("CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, "
             "description TEXT NOT NULL, applied_at_ns BIGINT NOT NULL)",
             "creating schema_migrations"));
    JP_TRY(const PgResult current, query("SELECT COALESCE(MAX(version), 0) FROM schema_migrations",
                                         {}, "reading schema_migrations"));
    const auto version = static_cast<int>(current.int64(0, 0));
    if (version > kHistorySchemaVersion) {
      return invalid_input(
          shown_, "schema_migrations.version", std::to_string(version),
          fmt::format("is newer than this jouleprof understands ({}); upgrade jouleprof",
                      kHistorySchemaVersion));
    }
    for (const Migration& m : history_migrations()) {
      if (m.version <= version) continue;
      JP_RETURN_IF_ERROR(exec(m.postgresql_sql, fmt::format("migration {}", m.version)));
      PgParams note;
      note.add(std::int64_t{m.version}).add(std::string(m.description)).add(realtime_now_ns());
      JP_RETURN_IF_ERROR(
          command("INSERT INTO schema_migrations (version, description, "
                  "applied_at_ns) VALUES ($1, $2, $3)",
                  note, "recording a migration"));
    }
    return Status::Ok();
  });
}

Result<int> PostgresHistory::schema_version() const {
  JP_TRY(const PgResult r,
         query("SELECT MAX(version) FROM schema_migrations", {}, "reading schema_migrations"));
  return static_cast<int>(r.int64(0, 0));
}

Result<std::int64_t> PostgresHistory::record(const StoredRun& r) {
  std::int64_t id = 0;
  const Status s = in_transaction([&]() -> Status {
    PgParams run;
    run.add(r.recorded_at_ns).add(r.kind).add(r.host).add(r.rank).add(r.world_size);
    run.add(r.command).add(r.tool_version).add(r.begin_ns).add(r.end_ns).add(r.exit_code);
    run.add(std::int64_t{r.partial ? 1 : 0}).add(r.total_energy_j).add(r.profile_path);
    run.add(r.warnings).add(r.process_energy_j).add(r.observed).add_key(r.run_key);
    run.add(r.tags.label).add(r.tags.branch).add(r.tags.commit);
    run.add(r.total_energy_low_j).add(r.total_energy_high_j);
    JP_TRY(const PgResult inserted,
           query(insert_run_sql(kPostgresDialect).c_str(), run, "recording the run"));
    if (inserted.rows() == 0) {
      // Recorded before (a retry, a re-import, or another writer with the same run a moment
      // ago, whose commit this insert waited for): the row there is the run.
      PgParams key;
      key.add(r.run_key);
      JP_TRY(const PgResult existing, query("SELECT id FROM runs WHERE run_key = $1", key,
                                            "finding the run recorded before"));
      if (existing.rows() != 1) return error("finding the run recorded before");
      id = existing.int64(0, 0);
      return Status::Ok();
    }
    id = inserted.int64(0, 0);
    for (const StoredChannel& c : r.channels) {
      PgParams channel;
      channel.add(id).add(c.channel_id).add(c.device).add(c.domain).add(c.parent_id);
      channel.add(c.provenance).add(c.energy_j).add(c.mean_power_w).add(c.process_energy_j);
      JP_RETURN_IF_ERROR(
          command(insert_channel_sql(kPostgresDialect).c_str(), channel, "recording a channel"));
    }
    std::int64_t ord = 0;
    for (const NodeEnergy& n : r.nodes) {
      PgParams node;
      node.add(id).add(ord++).add(n.path).add(n.energy_j).add(n.self_energy_j).add(n.time_ns);
      node.add(static_cast<std::int64_t>(n.calls)).add(std::string(to_string(n.provenance)));
      JP_RETURN_IF_ERROR(
          command(insert_node_sql(kPostgresDialect).c_str(), node, "recording a tree node"));
    }
    return Status::Ok();
  });
  if (!s.ok()) return s.error();
  return id;
}

Result<std::vector<RunRecord>> PostgresHistory::list(std::size_t limit,
                                                     const HistoryFilter& filter) const {
  const std::string sql = list_runs_sql(kPostgresDialect);
  PgParams params;
  for (const std::string& value : list_parameters(filter)) params.add(value);
  JP_TRY(const PgResult rows, query(sql.c_str(), params, "listing runs"));
  std::vector<RunRecord> runs;
  for (int row = 0; row < rows.rows() && (limit == 0 || runs.size() < limit); ++row) {
    RunRecord r = run_from_row(PgRow{rows, row});
    if (!filter.provenance || r.provenance == *filter.provenance) runs.push_back(std::move(r));
  }
  return runs;
}

Result<RunRecord> PostgresHistory::run(std::int64_t id) const {
  const std::string sql = run_by_id_sql(kPostgresDialect);
  PgParams params;
  params.add(id);
  JP_TRY(const PgResult rows, query(sql.c_str(), params, "reading a run"));
  if (rows.rows() == 0)
    return Error(ErrorCode::kNotFound, fmt::format("{}: no run with id {}", shown_, id));
  return run_from_row(PgRow{rows, 0});
}

Result<std::vector<NodeEnergy>> PostgresHistory::nodes(std::int64_t id) const {
  PgParams params;
  params.add(id);
  JP_TRY(const PgResult rows,
         query("SELECT path, energy_j, self_energy_j, time_ns, calls, provenance FROM run_nodes "
               "WHERE run_id = $1 ORDER BY ord",
               params, "reading run nodes"));
  std::vector<NodeEnergy> nodes;
  for (int row = 0; row < rows.rows(); ++row) {
    const auto provenance = provenance_from_string(rows.text(row, 5));
    if (!provenance) {
      return invalid_input(shown_, "run_nodes.provenance", rows.text(row, 5),
                           "is not a provenance name");
    }
    nodes.push_back(NodeEnergy{rows.text(row, 0), rows.real(row, 1), rows.real(row, 2),
                               rows.int64(row, 3), static_cast<std::uint64_t>(rows.int64(row, 4)),
                               *provenance});
  }
  return nodes;
}

}  // namespace

Result<std::unique_ptr<HistoryBackend>> open_postgresql_history(const std::string& url,
                                                                const std::string& shown) {
  // Keywords are applied in order and the URL (dbname, expanded) comes last, so what it says
  // about the timeout or the application name wins over these defaults.
  const std::array<const char*, 4> keywords = {"connect_timeout", "fallback_application_name",
                                               "dbname", nullptr};
  const std::array<const char*, 4> values = {kConnectTimeoutS, "jouleprof", url.c_str(), nullptr};
  PGconn* conn = PQconnectdbParams(keywords.data(), values.data(), /*expand_dbname=*/1);
  if (conn == nullptr) {
    return Error(ErrorCode::kUnavailable, shown + ": cannot connect: libpq is out of memory");
  }
  auto db = std::make_unique<PostgresHistory>(conn, shown);  // closes the connection on return
  if (PQstatus(conn) != CONNECTION_OK) {
    return Error(ErrorCode::kUnavailable, fmt::format("{}: cannot connect to the history: {}",
                                                      shown, one_line(PQerrorMessage(conn))));
  }
  // Notices ("relation already exists, skipping") are not the user's business.
  PQsetNoticeProcessor(
      conn, [](void*, const char*) {}, nullptr);
  JP_RETURN_IF_ERROR(db->migrate());
  return std::unique_ptr<HistoryBackend>(std::move(db));
}

}  // namespace jouleprof::detail
