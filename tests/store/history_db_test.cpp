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
  EXPECT_EQ(default_history_path(), "/tmp/x/history.db");
  unsetenv("JOULEPROF_DB");
  setenv("XDG_DATA_HOME", "/data", 1);
  EXPECT_EQ(default_history_path(), "/data/jouleprof/history.db");
  unsetenv("XDG_DATA_HOME");
  EXPECT_EQ(default_history_path(),
            std::string(std::getenv("HOME")) + "/.local/share/jouleprof/history.db");
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
