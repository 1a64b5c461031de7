// The history's tests, the shared ones run against both backends (a SQLite file and a real
// PostgreSQL server, tests/store/postgres_server.hpp), and the ones that only one backend has.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <cstdlib>
#include <filesystem>

#include "jouleprof/history.hpp"
#include "jouleprof/history_import.hpp"
#include "report/sample_profile.hpp"
#include "test_support.hpp"
#ifdef JOULEPROF_HAVE_POSTGRESQL
#include "store/postgres_server.hpp"
#endif

namespace jouleprof {
namespace {

// Each test of the suite gets an empty history of its backend: a new file, or a new database.
class History : public ::testing::TestWithParam<std::string> {
 protected:
  // Without its server a PostgreSQL test fails here, with the reason, before its body runs.
  void SetUp() override {
#ifdef JOULEPROF_HAVE_POSTGRESQL
    if (GetParam() == "postgresql") {
      const Result<std::string> server = testing::postgres_server_url();
      ASSERT_TRUE(server.ok()) << server.error().message();
    }
#endif
  }
  std::string fresh_location() {
    if (GetParam() == "sqlite") {
      return (dir_.path() / ("h" + std::to_string(++count_) + ".db")).string();
    }
#ifdef JOULEPROF_HAVE_POSTGRESQL
    const Result<std::string> url = testing::fresh_postgres_database();
    if (!url) ADD_FAILURE() << url.error().message();
    return url ? *url : std::string("postgresql://unavailable");
#else
    ADD_FAILURE() << "built without PostgreSQL";
    return "";
#endif
  }
  HistoryDb open_fresh() {
    auto db = HistoryDb::open(fresh_location());
    if (!db) ADD_FAILURE() << db.error().message();
    return std::move(db).value();
  }
  // Runs SQL on the database behind `location`, for tests that tamper with it.
  void run_sql(const std::string& location, const std::string& sql) {
    if (GetParam() == "sqlite") {
      sqlite3* raw = nullptr;
      ASSERT_EQ(sqlite3_open(location.c_str(), &raw), SQLITE_OK);
      EXPECT_EQ(sqlite3_exec(raw, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK) << sql;
      sqlite3_close(raw);
      return;
    }
#ifdef JOULEPROF_HAVE_POSTGRESQL
    const Status done = testing::run_postgres_sql(location, sql);
    EXPECT_TRUE(done.ok()) << done.error().message();
#endif
  }

  testing::TempDir dir_;
  int count_ = 0;
};

#ifdef JOULEPROF_HAVE_POSTGRESQL
INSTANTIATE_TEST_SUITE_P(Backends, History, ::testing::Values("sqlite", "postgresql"),
                         [](const auto& backend) { return backend.param; });
#else
INSTANTIATE_TEST_SUITE_P(Backends, History, ::testing::Values("sqlite"),
                         [](const auto& backend) { return backend.param; });
#endif

// A later run of the same host: what the history's run key tells apart.
Profile run_number(int i, testing::SampleProfileOptions o = {}) {
  o.start_offset_ns = i * kNsPerS;
  return testing::sample_profile(o);
}

TEST_P(History, RecordsARunWithTotalsChannelsAndNodes) {
  testing::TempDir dir;
  auto db = HistoryDb::open(fresh_location());
  ASSERT_TRUE(db.ok()) << db.error().message();
  EXPECT_EQ(*db->schema_version(), kHistorySchemaVersion);
  const Profile p = testing::sample_profile();
  auto id = db->record(p, (dir.path() / "profile.json").string());
  ASSERT_TRUE(id.ok()) << id.error().message();
  auto run = db->run(*id);
  ASSERT_TRUE(run.ok());
  EXPECT_EQ(run->kind, "profile");
  EXPECT_EQ(run->host, "host-a");
  EXPECT_EQ(run->rank, 0);
  EXPECT_EQ(run->world_size, 2);
  EXPECT_EQ(run->command, "python train.py --epochs 1");
  EXPECT_EQ(run->duration_ns, 2 * kNsPerS);
  EXPECT_EQ(run->exit_code, 0);
  EXPECT_FALSE(run->partial);
  EXPECT_DOUBLE_EQ(run->total_energy_j,
                   280.0);  // package + GPU; the nested core channel is not added
  EXPECT_EQ(run->profile_path, (dir.path() / "profile.json").string());
  EXPECT_EQ(run->warnings, 2u);
  EXPECT_GT(run->recorded_at_realtime_ns, 0);
  EXPECT_EQ(run->run_key, run_key_of(p));
  auto nodes = db->nodes(*id);
  ASSERT_TRUE(nodes.ok());
  ASSERT_EQ(nodes->size(), 9u);
  EXPECT_EQ(nodes->front().path, "");
  EXPECT_DOUBLE_EQ(nodes->front().energy_j, 280.0);
  EXPECT_EQ((*nodes)[3].path, "train_step/forward/aten::addmm");
  EXPECT_DOUBLE_EQ((*nodes)[3].energy_j, 50.0);
  EXPECT_EQ((*nodes)[3].calls, 3u);
  EXPECT_EQ(nodes->back().provenance, Provenance::kInterpolated);
}

TEST_P(History, KeepsTheObservedProcessesFigureBesideTheMachines) {
  HistoryDb db = open_fresh();
  ASSERT_TRUE(db.record(testing::sample_profile(), "").ok());
  Profile p = run_number(1);
  for (ChannelSummary& c : p.channels) {
    c.process = ProcessFigures{0.25 * c.energy_j, 0.25, {}, {}, "cpu-time"};
  }
  p.meta.options.process.observed = "pid 77 and its descendants";
  auto id = db.record(p, "");
  ASSERT_TRUE(id.ok()) << id.error().message();
  auto run = db.run(*id);
  ASSERT_TRUE(run.ok());
  ASSERT_TRUE(run->process_energy_j.has_value());
  EXPECT_DOUBLE_EQ(*run->process_energy_j, 0.25 * 280.0);  // top-level channels only
  EXPECT_EQ(run->observed, "pid 77 and its descendants");
  auto first = db.run(*id - 1);
  ASSERT_TRUE(first.ok());
  EXPECT_FALSE(first->process_energy_j.has_value());
  EXPECT_EQ(first->observed, "");
}

// A database written by a jouleprof with schema 1 gains the process columns and the run key; its
// runs have none.
TEST(HistoryDb, MigratesASchemaOneDatabase) {
  testing::TempDir dir;
  const std::string path = (dir.path() / "h.db").string();
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &raw), SQLITE_OK);
  const char* schema_one = R"sql(
CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, description TEXT NOT NULL,
  applied_at_ns INTEGER NOT NULL);
INSERT INTO schema_migrations VALUES (1, 'runs, their channel totals and per-node energies', 0);
CREATE TABLE runs (id INTEGER PRIMARY KEY AUTOINCREMENT, recorded_at_ns INTEGER NOT NULL,
  kind TEXT NOT NULL, host TEXT NOT NULL, rank INTEGER, world_size INTEGER, command TEXT NOT NULL,
  tool_version TEXT NOT NULL, begin_ns INTEGER NOT NULL, end_ns INTEGER NOT NULL,
  exit_code INTEGER, partial INTEGER NOT NULL, total_energy_j REAL NOT NULL,
  profile_path TEXT NOT NULL, warnings INTEGER NOT NULL);
CREATE TABLE run_channels (run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  channel_id TEXT NOT NULL, device TEXT NOT NULL, domain TEXT NOT NULL, parent_id TEXT NOT NULL,
  provenance TEXT NOT NULL, energy_j REAL NOT NULL, mean_power_w REAL NOT NULL,
  PRIMARY KEY (run_id, channel_id));
CREATE TABLE run_nodes (run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  ord INTEGER NOT NULL, path TEXT NOT NULL, energy_j REAL NOT NULL, self_energy_j REAL NOT NULL,
  time_ns INTEGER NOT NULL, calls INTEGER NOT NULL, provenance TEXT NOT NULL,
  PRIMARY KEY (run_id, path));
INSERT INTO runs VALUES (1, 5, 'run', 'old-host', NULL, NULL, 'make', '0.1.0', 0, 1000000000,
  0, 0, 12.5, '', 0);
)sql";
  ASSERT_EQ(sqlite3_exec(raw, schema_one, nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(raw);
  auto db = HistoryDb::open(path);
  ASSERT_TRUE(db.ok()) << db.error().message();
  EXPECT_EQ(*db->schema_version(), kHistorySchemaVersion);
  auto old = db->run(1);
  ASSERT_TRUE(old.ok()) << old.error().message();
  EXPECT_DOUBLE_EQ(old->total_energy_j, 12.5);
  EXPECT_FALSE(old->process_energy_j.has_value());
  EXPECT_EQ(old->run_key, "");
  EXPECT_EQ(old->tags.branch, "");
  EXPECT_FALSE(old->total_energy_low_j.has_value());
  ASSERT_TRUE(db->record(testing::sample_profile(), "").ok());
  EXPECT_EQ(db->list(0)->size(), 2U);
}

TEST_P(History, ListsNewestFirstWithALimit) {
  HistoryDb db = open_fresh();
  for (int i = 1; i <= 5; ++i) {
    testing::SampleProfileOptions o;
    o.scale = i;
    ASSERT_TRUE(db.record(run_number(i, o), "").ok());
  }
  auto all = db.list(0);
  ASSERT_TRUE(all.ok());
  ASSERT_EQ(all->size(), 5u);
  EXPECT_DOUBLE_EQ(all->front().total_energy_j, 5 * 280.0);
  EXPECT_GT(all->front().id, all->back().id);
  EXPECT_EQ(all->back().profile_path, "");
  EXPECT_EQ(db.list(2)->size(), 2u);
}

TEST_P(History, EachRunsProvenanceAndFiltersByHostCommandAndProvenance) {
  HistoryDb db = open_fresh();
  testing::SampleProfileOptions on_b;
  on_b.host = "host-b";
  Profile simulated = testing::sample_profile(on_b);
  for (ChannelSummary& c : simulated.channels) c.provenance = Provenance::kSimulated;
  simulated.meta.command = {"python", "bench.py"};
  Profile estimated = run_number(2);
  estimated.channels[2].provenance = Provenance::kEstimated;  // one estimated part: estimated
  Profile untouched = run_number(3);
  untouched.channels[1].provenance = Provenance::kEstimated;  // nested: not in the total
  ASSERT_TRUE(db.record(testing::sample_profile(), "").ok());
  ASSERT_TRUE(db.record(simulated, "").ok());
  ASSERT_TRUE(db.record(estimated, "").ok());
  ASSERT_TRUE(db.record(untouched, "").ok());
  Profile tree_only = run_number(4);
  tree_only.channels.clear();
  tree_only.tree->provenance = Provenance::kPredicted;
  ASSERT_TRUE(db.record(tree_only, "").ok());

  auto all = db.list(0);
  ASSERT_TRUE(all.ok());
  ASSERT_EQ(all->size(), 5u);
  EXPECT_EQ((*all)[0].provenance, Provenance::kPredicted);  // newest first: the root's
  EXPECT_EQ((*all)[1].provenance, Provenance::kMeasured);
  EXPECT_EQ((*all)[2].provenance, Provenance::kEstimated);
  EXPECT_EQ((*all)[3].provenance, Provenance::kSimulated);
  EXPECT_EQ((*all)[4].provenance, Provenance::kMeasured);
  EXPECT_EQ((*all)[3].provenance, simulated.total_provenance());

  HistoryFilter filter;
  filter.host = "host-b";
  EXPECT_EQ(db.list(0, filter)->size(), 1u);
  filter = {};
  filter.command_contains = "bench";
  EXPECT_EQ(db.list(0, filter)->front().host, "host-b");
  filter = {};
  filter.provenance = Provenance::kMeasured;
  auto measured = db.list(1, filter);  // the limit counts matching runs
  ASSERT_EQ(measured->size(), 1u);
  EXPECT_EQ(measured->front().id, (*all)[1].id);
  filter.host = "host-b";
  EXPECT_TRUE(db.list(0, filter)->empty());
}

TEST_P(History, AMissingRunIsNotFound) {
  HistoryDb db = open_fresh();
  auto run = db.run(42);
  ASSERT_FALSE(run.ok());
  EXPECT_EQ(run.error().code(), ErrorCode::kNotFound);
  EXPECT_NE(run.error().message().find("42"), std::string::npos);
}

TEST(HistoryDb, UsesWalAndRecordsItsMigrations) {
  testing::TempDir dir;
  const std::string path = (dir.path() / "h.db").string();
  ASSERT_TRUE(HistoryDb::open(path).ok());
  ASSERT_TRUE(HistoryDb::open(path).ok());  // reopening applies nothing twice
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &raw), SQLITE_OK);
  auto scalar = [&](const char* sql) {
    sqlite3_stmt* s = nullptr;
    sqlite3_prepare_v2(raw, sql, -1, &s, nullptr);
    std::string out;
    if (sqlite3_step(s) == SQLITE_ROW)
      out = reinterpret_cast<const char*>(sqlite3_column_text(s, 0));
    sqlite3_finalize(s);
    return out;
  };
  EXPECT_EQ(scalar("PRAGMA journal_mode"), "wal");
  EXPECT_EQ(scalar("SELECT COUNT(*) FROM schema_migrations"),
            std::to_string(kHistorySchemaVersion));
  EXPECT_EQ(scalar("SELECT MAX(version) FROM schema_migrations"),
            std::to_string(kHistorySchemaVersion));
  sqlite3_close(raw);
}

TEST_P(History, AppliesEachMigrationOnce) {
  const std::string location = fresh_location();
  ASSERT_TRUE(HistoryDb::open(location).ok());
  auto again = HistoryDb::open(location);  // reopening applies nothing twice
  ASSERT_TRUE(again.ok()) << again.error().message();
  EXPECT_EQ(*again->schema_version(), kHistorySchemaVersion);
  // Were a migration applied again, reopening would have failed: ALTER TABLE ADD COLUMN of a
  // column that is there.
  ASSERT_TRUE(again->record(testing::sample_profile(), "").ok());
}

TEST_P(History, RefusesADatabaseFromANewerJouleprof) {
  const std::string path = fresh_location();
  ASSERT_TRUE(HistoryDb::open(path).ok());
  run_sql(path, "INSERT INTO schema_migrations VALUES (99, 'future', 0)");
  auto db = HistoryDb::open(path);
  ASSERT_FALSE(db.ok());
  EXPECT_NE(db.error().message().find("'99'"), std::string::npos) << db.error().message();
}

TEST(HistoryDb, NotADatabaseIsAnError) {
  testing::TempDir dir;
  const auto path = dir.write("h.db", std::string(4096, 'x'));
  auto db = HistoryDb::open(path.string());
  ASSERT_FALSE(db.ok());
  EXPECT_NE(db.error().message().find(path.string()), std::string::npos);
}

TEST(HistoryDb, DefaultPathFollowsTheEnvironment) {
  const char* saved_db = std::getenv("JOULEPROF_DB");
  const std::string saved_db_value = saved_db ? saved_db : "";
  const char* saved_xdg = std::getenv("XDG_DATA_HOME");
  const std::string saved_xdg_value = saved_xdg ? saved_xdg : "";
  setenv("JOULEPROF_DB", "/tmp/x/history.db", 1);
  EXPECT_EQ(default_history_path().value(), "/tmp/x/history.db");
  unsetenv("JOULEPROF_DB");
  setenv("XDG_DATA_HOME", "/data", 1);
  EXPECT_EQ(default_history_path().value(), "/data/jouleprof/history.db");
  unsetenv("XDG_DATA_HOME");
  const char* home = std::getenv("HOME");
  const std::string saved_home = home ? home : "";
  setenv("HOME", "/home/u", 1);
  EXPECT_EQ(default_history_path().value(), "/home/u/.local/share/jouleprof/history.db");
  // None set: an error that names them, not a database in whatever directory this runs in.
  unsetenv("HOME");
  const Result<std::string> none = default_history_path();
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error().code(), ErrorCode::kNotFound);
  EXPECT_NE(none.error().message().find("JOULEPROF_DB, XDG_DATA_HOME and HOME are all unset"),
            std::string::npos);
  if (home) setenv("HOME", saved_home.c_str(), 1);
  if (saved_db) setenv("JOULEPROF_DB", saved_db_value.c_str(), 1);
  if (saved_xdg) setenv("XDG_DATA_HOME", saved_xdg_value.c_str(), 1);
}

TEST_P(History, RecordRunOpensAndRecordsInOneCall) {
  const std::string path = fresh_location();
  auto first = record_run(path, testing::sample_profile(), "a.json");
  auto second = record_run(path, run_number(1), "b.json");
  ASSERT_TRUE(first.ok() && second.ok());
  EXPECT_EQ(*second, *first + 1);
}

// A retried insert (the same run recorded again, from its profile or a re-import) lands once
// and answers the id it already has; another start time or host is another run.
TEST_P(History, RecordsEachRunOnce) {
  HistoryDb db = open_fresh();
  const Profile p = testing::sample_profile();
  auto first = db.record(p, "a.json");
  ASSERT_TRUE(first.ok()) << first.error().message();
  auto retried = db.record(p, "a.json");
  ASSERT_TRUE(retried.ok()) << retried.error().message();
  EXPECT_EQ(*retried, *first);
  testing::SampleProfileOptions elsewhere;
  elsewhere.host = "host-b";
  auto other_host = db.record(testing::sample_profile(elsewhere), "");
  auto later = db.record(run_number(1), "");
  ASSERT_TRUE(other_host.ok() && later.ok());
  EXPECT_NE(*other_host, *first);
  EXPECT_NE(*later, *first);
  EXPECT_EQ(db.list(0)->size(), 3u);
  EXPECT_EQ(db.nodes(*first)->size(), 9u);  // the retry added no second set of nodes
  // Without a realtime anchor there is no key: each recording is a run of its own.
  Profile unanchored = testing::sample_profile();
  unanchored.meta.anchor = {};
  ASSERT_TRUE(db.record(unanchored, "").ok());
  ASSERT_TRUE(db.record(unanchored, "").ok());
  EXPECT_EQ(db.list(0)->size(), 5u);
}

// Tags and the total's interval travel with a run, and list filters by them: the baseline of a
// budget is a branch or a label, of one command.
TEST_P(History, KeepsTagsAndTheTotalsIntervalAndFiltersByThem) {
  HistoryDb db = open_fresh();
  Profile banded = testing::sample_profile();
  for (ChannelSummary& c : banded.channels) c.band = EnergyBand{0.9 * c.energy_j, 1.1 * c.energy_j};
  ASSERT_TRUE(db.record(banded, "", RunTags{"nightly", "main", "abc123"}).ok());
  ASSERT_TRUE(db.record(run_number(1), "", RunTags{"", "feature/x", "def456"}).ok());
  Profile other_command = run_number(2);
  other_command.meta.command = {"python", "eval.py"};
  ASSERT_TRUE(db.record(other_command, "", RunTags{"", "main", "def456"}).ok());

  auto all = db.list(0);
  ASSERT_TRUE(all.ok());
  ASSERT_EQ(all->size(), 3u);
  const RunRecord& first = all->back();
  EXPECT_EQ(first.tags.label, "nightly");
  EXPECT_EQ(first.tags.branch, "main");
  EXPECT_EQ(first.tags.commit, "abc123");
  ASSERT_TRUE(first.total_energy_low_j && first.total_energy_high_j);
  EXPECT_NEAR(*first.total_energy_low_j, banded.total_energy_band()->low_j, 1e-9);
  EXPECT_NEAR(*first.total_energy_high_j, banded.total_energy_band()->high_j, 1e-9);
  EXPECT_FALSE((*all)[1].total_energy_low_j.has_value());
  EXPECT_EQ(first.channels, "nvml:0:power,rapl:package-0");  // top-level only, sorted

  HistoryFilter filter;
  filter.branch = "main";
  EXPECT_EQ(db.list(0, filter)->size(), 2u);
  filter.command = "python train.py --epochs 1";
  EXPECT_EQ(db.list(0, filter)->size(), 1u);
  filter = {};
  filter.label = "nightly";
  EXPECT_EQ(db.list(0, filter)->front().id, first.id);
  filter = {};
  filter.commit = "def456";
  EXPECT_EQ(db.list(0, filter)->size(), 2u);
  filter = {};
  filter.branch_or_label = "nightly";
  EXPECT_EQ(db.list(0, filter)->size(), 1u);
  filter.branch_or_label = "feature/x";
  EXPECT_EQ(db.list(0, filter)->front().tags.commit, "def456");
}

// `history import DIR` after a run whose history was unreachable: every profile under DIR once,
// other JSON files named as skipped, and importing again adds nothing.
TEST_P(History, ImportsProfilesOnceAndSkipsOtherJson) {
  testing::TempDir runs;
  std::filesystem::create_directories(runs.path() / "a");
  std::filesystem::create_directories(runs.path() / "b");
  ASSERT_TRUE(
      write_profile_json(testing::sample_profile(), (runs.path() / "a" / "profile.json").string())
          .ok());
  ASSERT_TRUE(
      write_profile_json(run_number(1), (runs.path() / "b" / "profile.json").string()).ok());
  runs.write("b/spans.json", "{\"spans\": []}");
  const std::string location = fresh_location();
  auto done = import_profiles(location, runs.path().string());
  ASSERT_TRUE(done.ok()) << done.error().message();
  ASSERT_EQ(done->recorded.size(), 2u);
  ASSERT_EQ(done->skipped.size(), 1u);
  EXPECT_NE(done->skipped[0].path.find("spans.json"), std::string::npos);
  auto again = import_profiles(location, runs.path().string());
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->recorded[0].id, done->recorded[0].id);
  auto db = HistoryDb::open(location);
  ASSERT_TRUE(db.ok());
  auto listed = db->list(0);
  ASSERT_EQ(listed->size(), 2u);
  EXPECT_EQ(listed->back().profile_path, (runs.path() / "a" / "profile.json").string());
  auto missing = import_profiles(location, (runs.path() / "nowhere").string());
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message().find("nowhere"), std::string::npos);
}

TEST(HistoryLocation, PasswordsAreRedactedAndOnlyUrlsAreServers) {
  EXPECT_TRUE(is_postgresql_url("postgresql://ci@db.example/energy"));
  EXPECT_TRUE(is_postgresql_url("postgres://ci@db.example/energy"));
  EXPECT_FALSE(is_postgresql_url("/var/lib/history.db"));
  EXPECT_FALSE(is_postgresql_url("postgresql.db"));
  EXPECT_EQ(redact_history_location("postgresql://ci:s3cret@db.example:5432/energy"),
            "postgresql://ci:***@db.example:5432/energy");
  EXPECT_EQ(redact_history_location("postgresql://ci@db.example/energy?password=s3cret&x=1"),
            "postgresql://ci@db.example/energy?password=***&x=1");
  EXPECT_EQ(redact_history_location("postgres://ci:p@ss@db.example/e?sslmode=require&password=q"),
            "postgres://ci:***@db.example/e?sslmode=require&password=***");
  EXPECT_EQ(redact_history_location("postgresql://ci@/energy?host=/run/pg&port=5433"),
            "postgresql://ci@/energy?host=/run/pg&port=5433");
  EXPECT_EQ(redact_history_location("/home/u/history.db"), "/home/u/history.db");
}

#ifdef JOULEPROF_HAVE_POSTGRESQL
// A server that is not there: one line, the location without its password, kUnavailable.
TEST(PostgresHistory, AFailedConnectionIsOneLineWithoutThePassword) {
  testing::TempDir dir;  // a socket directory with no server in it
  const std::string url =
      "postgresql://ci:s3cret@/energy?host=" + dir.path().string() + "&port=5999";
  auto db = HistoryDb::open(url);
  ASSERT_FALSE(db.ok());
  const std::string& message = db.error().message();
  EXPECT_EQ(db.error().code(), ErrorCode::kUnavailable);
  EXPECT_EQ(message.find("s3cret"), std::string::npos) << message;
  EXPECT_NE(message.find("postgresql://ci:***@/energy"), std::string::npos) << message;
  EXPECT_NE(message.find("cannot connect to the history"), std::string::npos) << message;
  EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  auto with_password_parameter = HistoryDb::open(
      "postgresql://ci@/energy?host=" + dir.path().string() + "&port=5999&password=s3cret");
  ASSERT_FALSE(with_password_parameter.ok());
  EXPECT_EQ(with_password_parameter.error().message().find("s3cret"), std::string::npos);
}

// libpq's URL forms reach the same database: a Unix socket directory (host=DIR&port=N, what the
// fixture gives) and TCP (host:port).
TEST(PostgresHistory, SocketDirectoryAndTcpUrlsReachTheSameHistory) {
  const Result<std::string> socket_url = testing::fresh_postgres_database();
  ASSERT_TRUE(socket_url.ok()) << socket_url.error().message();
  ASSERT_NE(socket_url->find("?host=/"), std::string::npos) << *socket_url;
  auto id = record_run(*socket_url, testing::sample_profile(), "");
  ASSERT_TRUE(id.ok()) << id.error().message();
  auto over_tcp = HistoryDb::open_existing(testing::tcp_form_of(*socket_url));
  ASSERT_TRUE(over_tcp.ok()) << over_tcp.error().message();
  auto run = over_tcp->run(*id);
  ASSERT_TRUE(run.ok()) << run.error().message();
  EXPECT_EQ(run->host, "host-a");
}
#endif

TEST(HistoryDb, ReadersDoNotCreateADatabase) {
  testing::TempDir dir;
  const auto path = dir.path() / "nowhere" / "h.db";
  auto db = HistoryDb::open_existing(path.string());
  ASSERT_FALSE(db.ok());
  EXPECT_EQ(db.error().code(), ErrorCode::kNotFound);
  EXPECT_NE(db.error().message().find("no run history there"), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "nowhere"));
  ASSERT_TRUE(HistoryDb::open(path.string()).ok());
  EXPECT_TRUE(HistoryDb::open_existing(path.string()).ok());
  EXPECT_FALSE(HistoryDb::open_existing(dir.path().string()).ok());
}

}  // namespace
}  // namespace jouleprof
