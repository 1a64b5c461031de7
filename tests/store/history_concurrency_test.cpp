// Several writers recording into one history at once: separate processes (fork, each with its own
// connection, as parallel CI jobs would) and threads, into a SQLite file and into a real
// PostgreSQL server. Every run must arrive once, complete with its nodes, and ids must be unique.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <map>
#include <set>
#include <thread>

#include "jouleprof/history.hpp"
#include "report/sample_profile.hpp"
#include "test_support.hpp"
#ifdef JOULEPROF_HAVE_POSTGRESQL
#include "store/postgres_server.hpp"
#endif

namespace jouleprof {
namespace {

constexpr int kWriters = 6;
constexpr int kRunsPerWriter = 15;

// Writer w's run i: its own host, a start time of its own.
Profile writer_run(const std::string& host_prefix, int w, int i) {
  testing::SampleProfileOptions o;
  o.host = host_prefix + std::to_string(w);
  o.start_offset_ns = i * kNsPerMs;
  return testing::sample_profile(o);
}

void expect_complete(const std::string& path, std::size_t expected_runs, int writers = kWriters) {
  auto db = HistoryDb::open(path);
  ASSERT_TRUE(db.ok()) << db.error().message();
  auto runs = db->list(0);
  ASSERT_TRUE(runs.ok());
  ASSERT_EQ(runs->size(), expected_runs);
  std::set<std::int64_t> ids;
  std::set<std::string> hosts;
  for (const RunRecord& r : *runs) {
    ids.insert(r.id);
    hosts.insert(r.host);
    auto nodes = db->nodes(r.id);
    ASSERT_TRUE(nodes.ok());
    EXPECT_EQ(nodes->size(), 9u) << "run " << r.id;
  }
  EXPECT_EQ(ids.size(), expected_runs);
  EXPECT_EQ(hosts.size(), static_cast<std::size_t>(writers));
}

TEST(HistoryConcurrency, ProcessesWritingAtOnceLoseNothing) {
  testing::TempDir dir;
  const std::string path = (dir.path() / "history.db").string();
  std::vector<pid_t> children;
  for (int w = 0; w < kWriters; ++w) {
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      // Child: its own connection (opened after fork), migrating a fresh database concurrently.
      int failures = 0;
      for (int i = 0; i < kRunsPerWriter; ++i)
        failures += record_run(path, writer_run("node-", w, i), "").ok() ? 0 : 1;
      _exit(failures == 0 ? 0 : 1);
    }
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "writer process failed";
  }
  expect_complete(path, kWriters * kRunsPerWriter);
}

TEST(HistoryConcurrency, ThreadsWithTheirOwnConnectionsLoseNothing) {
  testing::TempDir dir;
  const std::string path = (dir.path() / "history.db").string();
  std::vector<std::thread> threads;
  std::vector<int> failures(kWriters, 0);
  for (int w = 0; w < kWriters; ++w) {
    threads.emplace_back([&, w] {
      auto db = HistoryDb::open(path);
      if (!db) {
        failures[w] = kRunsPerWriter;
        return;
      }
      for (int i = 0; i < kRunsPerWriter; ++i)
        failures[w] += db->record(writer_run("thread-", w, i), "").ok() ? 0 : 1;
    });
  }
  for (std::thread& t : threads) t.join();
  for (int w = 0; w < kWriters; ++w) EXPECT_EQ(failures[w], 0) << "writer " << w;
  expect_complete(path, kWriters * kRunsPerWriter);
}

#ifdef JOULEPROF_HAVE_POSTGRESQL
// Eight CI jobs recording into one team history at once, each connecting to a fresh database
// (so they race through the migrations too), and each also retrying its neighbour's runs, as a
// job whose first insert timed out would: every run is there exactly once, by its run key.
TEST(HistoryConcurrency, EightWritersIntoPostgresqlLandEveryRunOnce) {
  constexpr int kPostgresWriters = 8;
  constexpr int kPostgresRuns = 12;
  const Result<std::string> url = testing::fresh_postgres_database();
  ASSERT_TRUE(url.ok()) << url.error().message();
  std::vector<pid_t> children;
  for (int w = 0; w < kPostgresWriters; ++w) {
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      auto db = HistoryDb::open(*url);
      if (!db) _exit(2);
      int failures = 0;
      const int neighbour = (w + 1) % kPostgresWriters;
      for (int i = 0; i < kPostgresRuns; ++i) {
        failures += db->record(writer_run("ci-", w, i), "").ok() ? 0 : 1;
        failures += db->record(writer_run("ci-", neighbour, i), "").ok() ? 0 : 1;
      }
      _exit(failures == 0 ? 0 : 1);
    }
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
        << "writer process failed (status " << status << ")";
  }
  expect_complete(*url, kPostgresWriters * kPostgresRuns, kPostgresWriters);
  auto db = HistoryDb::open(*url);
  ASSERT_TRUE(db.ok());
  const Result<std::vector<RunRecord>> runs = db->list(0);
  ASSERT_TRUE(runs.ok());
  std::map<std::string, int> times_recorded;
  for (const RunRecord& r : *runs) ++times_recorded[r.run_key];
  EXPECT_EQ(times_recorded.size(), static_cast<std::size_t>(kPostgresWriters * kPostgresRuns));
  for (int w = 0; w < kPostgresWriters; ++w) {
    for (int i = 0; i < kPostgresRuns; ++i) {
      EXPECT_EQ(times_recorded[run_key_of(writer_run("ci-", w, i))], 1)
          << "writer " << w << " run " << i;
    }
  }
}
#endif

}  // namespace
}  // namespace jouleprof
