#include <gtest/gtest.h>
#include <sqlite3.h>

#include <cstdlib>
#include <filesystem>

#include "jouleprof/history.hpp"
#include "report/sample_profile.hpp"
#include "test_support.hpp"

namespace jouleprof {
namespace {

TEST(HistoryDb, RecordsARunWithTotalsChannelsAndNodes) {
  testing::TempDir dir;
  const std::string path = (dir.path() / "sub" / "history.db").string();  // directory is created
  auto db = HistoryDb::open(path);
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

TEST(HistoryDb, KeepsTheObservedProcessesFigureBesideTheMachines) {
  testing::TempDir dir;
  auto db = HistoryDb::open((dir.path() / "h.db").string());
  ASSERT_TRUE(db.ok());
  Profile p = testing::sample_profile();
  ASSERT_TRUE(db->record(p, "").ok());
  for (ChannelSummary& c : p.channels) {
    c.process = ProcessFigures{0.25 * c.energy_j, 0.25, {}, {}, "cpu-time"};
  }
  p.meta.options.process.observed = "pid 77 and its descendants";
  auto id = db->record(p, "");
  ASSERT_TRUE(id.ok()) << id.error().message();
  auto run = db->run(*id);
  ASSERT_TRUE(run.ok());
  ASSERT_TRUE(run->process_energy_j.has_value());
  EXPECT_DOUBLE_EQ(*run->process_energy_j, 0.25 * 280.0);  // top-level channels only
  EXPECT_EQ(run->observed, "pid 77 and its descendants");
  auto first = db->run(*id - 1);
  ASSERT_TRUE(first.ok());
  EXPECT_FALSE(first->process_energy_j.has_value());
  EXPECT_EQ(first->observed, "");
}

// A database written by a jouleprof with schema 1 gains the process columns; its runs have none.
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
  EXPECT_EQ(*db->schema_version(), 2);
  auto old = db->run(1);
  ASSERT_TRUE(old.ok()) << old.error().message();
  EXPECT_DOUBLE_EQ(old->total_energy_j, 12.5);
  EXPECT_FALSE(old->process_energy_j.has_value());
  ASSERT_TRUE(db->record(testing::sample_profile(), "").ok());
  EXPECT_EQ(db->list(0)->size(), 2U);
}

TEST(HistoryDb, ListsNewestFirstWithALimit) {
  testing::TempDir dir;
  auto db = HistoryDb::open((dir.path() / "h.db").string());
  ASSERT_TRUE(db.ok());
  for (int i = 1; i <= 5; ++i) {
    testing::SampleProfileOptions o;
    o.scale = i;
    ASSERT_TRUE(db->record(testing::sample_profile(o), "").ok());
  }
  auto all = db->list(0);
  ASSERT_TRUE(all.ok());
  ASSERT_EQ(all->size(), 5u);
  EXPECT_DOUBLE_EQ(all->front().total_energy_j, 5 * 280.0);
  EXPECT_GT(all->front().id, all->back().id);
  EXPECT_EQ(all->back().profile_path, "");
  EXPECT_EQ(db->list(2)->size(), 2u);
}

TEST(HistoryDb, EachRunsProvenanceAndFiltersByHostCommandAndProvenance) {
  testing::TempDir dir;
  auto db = HistoryDb::open((dir.path() / "h.db").string());
  ASSERT_TRUE(db.ok());
  testing::SampleProfileOptions on_b;
  on_b.host = "host-b";
  Profile simulated = testing::sample_profile(on_b);
  for (ChannelSummary& c : simulated.channels) c.provenance = Provenance::kSimulated;
  simulated.meta.command = {"python", "bench.py"};
  Profile estimated = testing::sample_profile();
  estimated.channels[2].provenance = Provenance::kEstimated;  // one estimated part: estimated
  Profile untouched = testing::sample_profile();
  untouched.channels[1].provenance = Provenance::kEstimated;  // nested: not in the total
  ASSERT_TRUE(db->record(testing::sample_profile(), "").ok());
  ASSERT_TRUE(db->record(simulated, "").ok());
  ASSERT_TRUE(db->record(estimated, "").ok());
  ASSERT_TRUE(db->record(untouched, "").ok());
  Profile tree_only = testing::sample_profile();
  tree_only.channels.clear();
  tree_only.tree->provenance = Provenance::kPredicted;
  ASSERT_TRUE(db->record(tree_only, "").ok());

  auto all = db->list(0);
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
  EXPECT_EQ(db->list(0, filter)->size(), 1u);
  filter = {};
  filter.command_contains = "bench";
  EXPECT_EQ(db->list(0, filter)->front().host, "host-b");
  filter = {};
  filter.provenance = Provenance::kMeasured;
  auto measured = db->list(1, filter);  // the limit counts matching runs
  ASSERT_EQ(measured->size(), 1u);
  EXPECT_EQ(measured->front().id, (*all)[1].id);
  filter.host = "host-b";
  EXPECT_TRUE(db->list(0, filter)->empty());
}

TEST(HistoryDb, AMissingRunIsNotFound) {
  testing::TempDir dir;
  auto db = HistoryDb::open((dir.path() / "h.db").string());
  ASSERT_TRUE(db.ok());
  auto run = db->run(42);
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

TEST(HistoryDb, RefusesADatabaseFromANewerJouleprof) {
  testing::TempDir dir;
  const std::string path = (dir.path() / "h.db").string();
  ASSERT_TRUE(HistoryDb::open(path).ok());
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &raw), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(raw, "INSERT INTO schema_migrations VALUES (99, 'future', 0)", nullptr,
                         nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(raw);
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

TEST(HistoryDb, RecordRunOpensAndRecordsInOneCall) {
  testing::TempDir dir;
  const std::string path = (dir.path() / "h.db").string();
  auto first = record_run(path, testing::sample_profile(), "a.json");
  auto second = record_run(path, testing::sample_profile(), "b.json");
  ASSERT_TRUE(first.ok() && second.ok());
  EXPECT_EQ(*second, *first + 1);
}

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
