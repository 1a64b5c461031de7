// Several writers recording into one history at once: separate processes (fork, each with its own
// connection, as parallel CI jobs would) and threads. Every run must arrive, complete with its
// nodes, and ids must be unique.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <set>
#include <thread>

#include "jouleprof/history.hpp"
#include "report/sample_profile.hpp"
#include "test_support.hpp"

namespace jouleprof {
namespace {

constexpr int kWriters = 6;
constexpr int kRunsPerWriter = 15;

void expect_complete(const std::string& path, std::size_t expected_runs) {
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
  EXPECT_EQ(hosts.size(), static_cast<std::size_t>(kWriters));
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
      testing::SampleProfileOptions o;
      o.host = "node-" + std::to_string(w);
      const Profile p = testing::sample_profile(o);
      int failures = 0;
      for (int i = 0; i < kRunsPerWriter; ++i) failures += record_run(path, p, "").ok() ? 0 : 1;
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
      testing::SampleProfileOptions o;
      o.host = "thread-" + std::to_string(w);
      const Profile p = testing::sample_profile(o);
      auto db = HistoryDb::open(path);
      if (!db) {
        failures[w] = kRunsPerWriter;
        return;
      }
      for (int i = 0; i < kRunsPerWriter; ++i) failures[w] += db->record(p, "").ok() ? 0 : 1;
    });
  }
  for (std::thread& t : threads) t.join();
  for (int w = 0; w < kWriters; ++w) EXPECT_EQ(failures[w], 0) << "writer " << w;
  expect_complete(path, kWriters * kRunsPerWriter);
}

}  // namespace
}  // namespace jouleprof
