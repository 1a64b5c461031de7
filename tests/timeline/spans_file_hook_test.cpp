// JOULEPROF_SPANS_FILE: a child process instrumented with the C API records from start-up and
// writes its spans at exit, on the same monotonic clock as this process.
#include <gtest/gtest.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "jouleprof/recorder.hpp"
#include "jouleprof/span_dump.hpp"
#include "test_support.hpp"

extern char** environ;

namespace jouleprof {
namespace {

using testing::TempDir;

// Runs the child with JOULEPROF_SPANS_FILE=spans_file and `extra_env` (NAME=VALUE); returns its
// pid, or -1. `exit_status` is -1 when it died by a signal.
pid_t run_child(const std::string& spans_file, int& exit_status, std::string mode = "",
                const std::vector<std::string>& extra_env = {}) {
  std::vector<std::string> env_strings;
  for (char** e = environ; *e != nullptr; ++e) {
    if (std::string_view(*e).starts_with(std::string(kSpansFileEnv) + "=")) continue;
    env_strings.emplace_back(*e);
  }
  env_strings.push_back(std::string(kSpansFileEnv) + "=" + spans_file);
  env_strings.insert(env_strings.end(), extra_env.begin(), extra_env.end());
  std::vector<char*> env;
  for (std::string& s : env_strings) env.push_back(s.data());
  env.push_back(nullptr);
  std::string program = JOULEPROF_SPANS_CHILD;
  char* argv[] = {program.data(), mode.empty() ? nullptr : mode.data(), nullptr};
  pid_t pid = -1;
  if (posix_spawn(&pid, program.c_str(), nullptr, nullptr, argv, env.data()) != 0) return -1;
  int status = 0;
  if (waitpid(pid, &status, 0) != pid) return -1;
  exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return pid;
}

TEST(SpansFileHook, ChildWritesItsSpansAtExit) {
  const TempDir dir;
  const std::string path = (dir.path() / "spans.json").string();
  int exit_status = -1;
  const TimeNs before = monotonic_now_ns();
  const pid_t pid = run_child(path, exit_status);
  const TimeNs after = monotonic_now_ns();
  ASSERT_GT(pid, 0);
  ASSERT_EQ(exit_status, 0);

  auto dump = read_span_dump(path);
  ASSERT_TRUE(dump.ok()) << dump.error().message();
  EXPECT_EQ(dump->pid, pid);
  EXPECT_EQ(dump->dropped, 0U);
  const Timeline& t = dump->timeline;
  ASSERT_EQ(t.tracks().size(), 1U);
  ASSERT_EQ(t.spans().size(), 10U) << "3 × (train, step, evaluate) and the span left open";
  int steps = 0;
  for (std::uint32_t i = 0; i < t.spans().size(); ++i) {
    const Span& s = t.spans()[i];
    // The same CLOCK_MONOTONIC: no offset is needed between parent and child.
    EXPECT_GE(s.begin_ns, before);
    EXPECT_LE(s.end_ns, after);
    if (t.name(s.name) == "model/step") {
      ++steps;
      EXPECT_EQ(t.path_of(i), "train/model/step");
      EXPECT_EQ(s.category, SpanCategory::kStep);
      EXPECT_EQ(s.pass, Pass::kForward);
      ASSERT_NE(s.attributes, kNoIndex);
      EXPECT_EQ(t.attributes()[s.attributes], (Attributes{{"batch", "32"}}));
    }
  }
  EXPECT_EQ(steps, 3);
  ASSERT_EQ(t.marks().size(), 3U);
  EXPECT_EQ(t.name(t.marks()[0].name), "epoch_end");
  EXPECT_FALSE(std::filesystem::exists(path + ".tmp" + std::to_string(pid)))
      << "written via rename";
}

// A process that will not exit normally writes its spans first; the exit handler it never
// reaches would have written nothing more, and what came after the flush is not in the file.
TEST(SpansFileHook, AFlushWritesTheSpansOfAProcessThatDiesByASignal) {
  const TempDir dir;
  const std::string path = (dir.path() / "spans.json").string();
  int exit_status = 0;
  ASSERT_GT(run_child(path, exit_status, "flush-then-sigint"), 0);
  EXPECT_EQ(exit_status, -1) << "died by SIGINT";
  auto dump = read_span_dump(path);
  ASSERT_TRUE(dump.ok()) << dump.error().message();
  EXPECT_EQ(dump->timeline.spans().size(), 9U) << "3 × (train, step, evaluate), not the later one";
}

TEST(SpansFileHook, PercentPIsTheProcessId) {
  const TempDir dir;
  int exit_status = -1;
  const pid_t pid = run_child((dir.path() / "spans-%p.json").string(), exit_status);
  ASSERT_GT(pid, 0);
  ASSERT_EQ(exit_status, 0);
  EXPECT_TRUE(std::filesystem::exists(dir.path() / ("spans-" + std::to_string(pid) + ".json")));
}

// A forked child inherits its parent's recorder: it writes no dump of its own, which would hold
// its parent's spans a second time.
TEST(SpansFileHook, AForkedChildWritesNoDump) {
  const TempDir dir;
  int exit_status = -1;
  const pid_t pid = run_child((dir.path() / "spans-%p.json").string(), exit_status, "fork");
  ASSERT_GT(pid, 0);
  ASSERT_EQ(exit_status, 0);
  std::vector<std::string> written;
  for (const auto& entry : std::filesystem::directory_iterator(dir.path()))
    written.push_back(entry.path().filename().string());
  EXPECT_EQ(written, std::vector<std::string>{"spans-" + std::to_string(pid) + ".json"});
}

// The rank a launcher gave the process is in its dump, so that `jouleprof run --spans` can tell
// its ranks apart after they have ended; the rest of the environment is not.
TEST(SpansFileHook, TheDumpKeepsTheLaunchersVariablesAndNothingElseOfTheEnvironment) {
  const TempDir dir;
  const std::string path = (dir.path() / "spans.json").string();
  int exit_status = -1;
  ASSERT_GT(run_child(path, exit_status, "",
                      {"RANK=1", "LOCAL_RANK=1", "WORLD_SIZE=2", "JOULEPROF_TEST_TOKEN=secret"}),
            0);
  ASSERT_EQ(exit_status, 0);
  auto dump = read_span_dump(path);
  ASSERT_TRUE(dump.ok()) << dump.error().message();
  const std::map<std::string, std::string>& recorded = dump->launcher_environment;
  EXPECT_EQ(recorded.at("RANK"), "1");
  EXPECT_EQ(recorded.at("LOCAL_RANK"), "1");
  EXPECT_EQ(recorded.at("WORLD_SIZE"), "2");
  EXPECT_FALSE(recorded.contains("JOULEPROF_TEST_TOKEN"));
  EXPECT_FALSE(recorded.contains("PATH"));
}

TEST(SpansFileHook, UnwritablePathIsReportedNotFatal) {
  int exit_status = -1;
  const pid_t pid = run_child("/nonexistent-dir/spans.json", exit_status);
  ASSERT_GT(pid, 0);
  EXPECT_EQ(exit_status, 0) << "the program's own exit status is kept";
}

}  // namespace
}  // namespace jouleprof
