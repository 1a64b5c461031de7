#include "jouleprof/observed_processes.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <thread>

namespace jouleprof {
namespace {

TEST(ObservedProcesses, DescribesWhatIsObserved) {
  auto tree = ObservedProcesses::process_tree();
  EXPECT_EQ(tree->kind(), ObservedProcesses::Kind::kProcessTree);
  EXPECT_EQ(tree->root(), 0);
  EXPECT_EQ(tree->describe(), "a process tree not started yet");
  tree->set_root(1234);
  EXPECT_EQ(tree->describe(), "pid 1234 and its descendants");
  auto group = ObservedProcesses::cgroup("/system.slice/x.service");
  EXPECT_EQ(group->kind(), ObservedProcesses::Kind::kCgroup);
  EXPECT_EQ(group->describe(), "cgroup /system.slice/x.service");
}

TEST(ObservedProcesses, RemembersEveryPublishedMember) {
  auto tree = ObservedProcesses::process_tree(10);
  tree->publish({10, 12});
  tree->publish({10, 11});
  EXPECT_EQ(tree->pids(), (std::vector<pid_t>{10, 11, 12}));
}

TEST(ObservedProcesses, PublishAndReadFromTwoThreads) {
  auto tree = ObservedProcesses::process_tree(1);
  std::thread writer([&] {
    for (pid_t p = 1; p <= 2000; ++p) tree->publish({p});
  });
  std::size_t seen = 0;
  for (int i = 0; i < 200; ++i) seen = std::max(seen, tree->pids().size());
  writer.join();
  EXPECT_LE(seen, 2000U);
  EXPECT_EQ(tree->pids().size(), 2000U);
}

}  // namespace
}  // namespace jouleprof
