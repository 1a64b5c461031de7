#include "sources/process_activity.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <map>

#include "fake_proc.hpp"
#include "sources/backends.hpp"

namespace jouleprof {
namespace {

using process_activity::parse_cgroup_usage_usec;
using process_activity::parse_task_stat;
using process_activity::TaskStat;
using process_activity::TreeCpuTime;
using testing::FakeProc;
using testing::FakeTask;
using testing::stat_line;

const double kTicksPerS = static_cast<double>(sysconf(_SC_CLK_TCK));

TEST(TaskStat, ReadsTheFieldsAfterACommWithSpacesAndParentheses) {
  FakeTask t;
  t.pid = 4242;
  t.ppid = 17;
  t.comm = "my (odd) cmd) x";
  t.utime = 11;
  t.stime = 22;
  t.cutime = 33;
  t.cstime = 44;
  t.start_time = 5555;
  t.processor = 3;
  t.state = 'R';
  Result<TaskStat> s = parse_task_stat(stat_line(t), "/proc/4242/stat");
  ASSERT_TRUE(s.ok()) << s.error().message();
  EXPECT_EQ(s->pid, 4242);
  EXPECT_EQ(s->ppid, 17);
  EXPECT_EQ(s->state, 'R');
  EXPECT_EQ(s->utime, 11U);
  EXPECT_EQ(s->stime, 22U);
  EXPECT_EQ(s->cutime, 33U);
  EXPECT_EQ(s->cstime, 44U);
  EXPECT_EQ(s->start_time, 5555U);
  EXPECT_EQ(s->processor, 3);
  EXPECT_EQ(s->own_ticks(), 33U);
  EXPECT_EQ(s->total_ticks(), 110U);
}

TEST(TaskStat, GarbageNamesTheFileAndField) {
  Result<TaskStat> s =
      parse_task_stat("12 (x) S 1 1 1 0 -1 0 0 0 0 0 ab 2 3 4 20 0 1 0 9 0", "/fake/proc/12/stat");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message().find("/fake/proc/12/stat"), std::string::npos);
  EXPECT_NE(s.error().message().find("utime"), std::string::npos) << s.error().message();
  EXPECT_FALSE(parse_task_stat("12 x S 1", "p").ok());
  EXPECT_FALSE(parse_task_stat("12 (x) S 1 2 3", "p").ok());
}

TEST(CgroupCpuStat, ReadsUsageAndRefusesGarbage) {
  Result<std::uint64_t> u =
      parse_cgroup_usage_usec("usage_usec 1234567\nuser_usec 1\nsystem_usec 2\n", "cpu.stat");
  ASSERT_TRUE(u.ok()) << u.error().message();
  EXPECT_EQ(*u, 1234567U);
  EXPECT_FALSE(parse_cgroup_usage_usec("user_usec 1\n", "cpu.stat").ok());
  EXPECT_FALSE(parse_cgroup_usage_usec("usage_usec 12x\n", "cpu.stat").ok());
}

TaskStat task(pid_t pid, pid_t ppid, std::uint64_t own, std::uint64_t children = 0,
              std::uint64_t start = 100) {
  TaskStat t;
  t.pid = pid;
  t.ppid = ppid;
  t.utime = own;
  t.cutime = children;
  t.start_time = start;
  return t;
}

// The tree's ticks through forks, a reap inside the tree, an orphan re-parented to init and the
// root reaped outside: every member's time counts once, exited children's included.
TEST(TreeCpuTime, CountsEveryMemberOnceThroughReapsAndOrphans) {
  TreeCpuTime tree;
  // Root 100 with child 101; 200 is another tree.
  EXPECT_EQ(tree.update(100, {task(100, 50, 10), task(101, 100, 20), task(200, 1, 70)}), 30U);
  // 101 forks 102.
  EXPECT_EQ(tree.update(
                100, {task(100, 50, 12), task(101, 100, 25), task(102, 101, 5), task(200, 1, 90)}),
            42U);
  // 101 ends and 100 reaps it: 101's 26 ticks move into 100's cutime; 102 is re-parented to 1.
  EXPECT_EQ(tree.update(100, {task(100, 50, 13, 26), task(102, 1, 8), task(200, 1, 95)}), 47U);
  // 102, the orphan, ends and init reaps it: its last-seen 8 ticks stay counted.
  EXPECT_EQ(tree.update(100, {task(100, 50, 15, 26), task(200, 1, 99)}), 49U);
  // The root ends, reaped by its parent outside the tree: its last-seen ticks stay.
  EXPECT_EQ(tree.update(100, {task(200, 1, 120)}), 49U);
  EXPECT_TRUE(tree.live_members().empty());
  EXPECT_EQ(tree.all_members(), (std::vector<pid_t>{100, 101, 102}));
}

// A reap seen half way (the parent read before it reaped, the child already gone) makes the sum
// dip for one read; the total holds instead, and catches up.
TEST(TreeCpuTime, NeverDecreases) {
  TreeCpuTime tree;
  EXPECT_EQ(tree.update(100, {task(100, 50, 10), task(101, 100, 20)}), 30U);
  EXPECT_EQ(tree.update(100, {task(100, 50, 11)}), 30U);
  EXPECT_EQ(tree.update(100, {task(100, 50, 11, 21)}), 32U);
}

TEST(TreeCpuTime, AReusedPidIsANewProcess) {
  TreeCpuTime tree;
  EXPECT_EQ(tree.update(100, {task(100, 50, 10), task(101, 100, 20, 0, 100)}), 30U);
  // 101 ended (reaped by 100: 20 ticks in its cutime) and an unrelated process got pid 101.
  EXPECT_EQ(tree.update(100, {task(100, 50, 10, 20), task(101, 1, 500, 0, 900)}), 30U);
}

struct SourceUnderTest {
  FakeProc proc;
  std::shared_ptr<ObservedProcesses> observed = ObservedProcesses::process_tree(0);
  std::unique_ptr<Source> source;
  std::vector<Reading> readings;

  explicit SourceUnderTest(int cpus = 2, int packages = 1) : proc(cpus, packages) {}
  void open(bool threads = false) {
    SourceOptions options;
    options.sysfs_root = proc.root_string();
    options.observed = observed;
    if (threads) options.settings["processes.threads"] = "1";
    source = make_process_activity_source(options);
    ASSERT_TRUE(source->availability().available) << source->availability().reason;
  }
  std::map<std::string, double> read() {
    readings.assign(source->channels().size(), Reading{});
    source->read(readings);
    std::map<std::string, double> values;
    for (std::size_t i = 0; i < readings.size(); ++i) {
      EXPECT_TRUE(readings[i].ok) << source->channels()[i].id << ": " << source->read_error(i);
      values[source->channels()[i].id] = readings[i].value;
    }
    return values;
  }
};

TEST(ProcessSource, ChannelsAreBusyTimeWithTheirRoles) {
  SourceUnderTest t;
  t.open();
  ASSERT_EQ(t.source->channels().size(), 3U);
  for (const Channel& c : t.source->channels()) {
    EXPECT_EQ(c.kind, ChannelKind::kBusyTime);
    EXPECT_EQ(c.device, "cpu");
    EXPECT_EQ(c.provenance, Provenance::kMeasured);
    EXPECT_FALSE(c.provenance_detail.empty());
  }
  EXPECT_EQ(t.source->channels()[0].id, "processes:cpu:cpu-time");
  EXPECT_EQ(t.source->channels()[1].id, "processes:cpu:busy");
  EXPECT_EQ(t.source->channels()[2].id, "processes:cpu:idle");
}

// Two process trees on the machine: the observed one's CPU time is its own, to the tick, and the
// machine's busy and idle time come from /proc/stat.
TEST(ProcessSource, ReadsTheObservedTreeAndTheMachine) {
  SourceUnderTest t;
  t.proc.set_cpu_ticks(1000, 3000);
  t.proc.set_process({.pid = 300, .ppid = 1, .utime = 40, .stime = 10});
  t.proc.set_process({.pid = 301, .ppid = 300, .utime = 25});
  t.proc.set_process({.pid = 400, .ppid = 1, .utime = 500});  // the other tree
  t.proc.set_process({.pid = 401, .ppid = 400, .utime = 300});
  t.open();
  std::map<std::string, double> v = t.read();
  EXPECT_DOUBLE_EQ(v["processes:cpu:cpu-time"], 0.0) << "nothing is observed before the root";
  t.observed->set_root(300);
  v = t.read();
  EXPECT_DOUBLE_EQ(v["processes:cpu:cpu-time"], 75 / kTicksPerS);
  EXPECT_DOUBLE_EQ(v["processes:cpu:busy"], 1000 / kTicksPerS);
  EXPECT_DOUBLE_EQ(v["processes:cpu:idle"], 3000 / kTicksPerS);
  EXPECT_EQ(t.observed->pids(), (std::vector<pid_t>{300, 301}));

  // 301 exits and 300 reaps it: its time counts through 300's cutime.
  t.proc.remove_process(301);
  t.proc.set_process({.pid = 300, .ppid = 1, .utime = 41, .stime = 10, .cutime = 30});
  v = t.read();
  EXPECT_DOUBLE_EQ(v["processes:cpu:cpu-time"], 81 / kTicksPerS);
}

TEST(ProcessSource, FollowsChildrenFilesWhenTheKernelHasThem) {
  SourceUnderTest t;
  t.proc.set_process({.pid = 300, .ppid = 1, .utime = 10}, true);
  t.proc.set_process({.pid = 302, .ppid = 300, .utime = 7}, true);
  t.proc.set_children(300, {302});
  t.proc.set_process({.pid = 400, .ppid = 1, .utime = 500}, true);
  t.observed->set_root(300);
  t.open();
  std::map<std::string, double> v = t.read();
  EXPECT_DOUBLE_EQ(v["processes:cpu:cpu-time"], 17 / kTicksPerS);
  EXPECT_EQ(t.observed->pids(), (std::vector<pid_t>{300, 302}));
}

TEST(ProcessSource, GivesEveryObservedThreadAChannelAsItAppears) {
  SourceUnderTest t;
  t.proc.set_process({.pid = 300, .ppid = 1, .utime = 10});
  t.observed->set_root(300);
  t.open(true);
  t.read();
  ASSERT_EQ(t.source->channels().size(), 4U) << "the main thread's channel was added";
  EXPECT_EQ(t.source->channels()[3].id, "processes:thread:300");
  EXPECT_EQ(t.source->channels()[3].domain, "thread");
  t.proc.set_thread(300, {.pid = 305, .ppid = 1, .utime = 4});
  t.proc.set_process({.pid = 300, .ppid = 1, .utime = 18});
  t.proc.set_thread(300, {.pid = 305, .ppid = 1, .utime = 8});
  std::map<std::string, double> v = t.read();
  EXPECT_DOUBLE_EQ(v["processes:thread:300"], 18 / kTicksPerS);
  ASSERT_EQ(t.source->channels().size(), 5U);
  v = t.read();
  EXPECT_DOUBLE_EQ(v["processes:thread:305"], 8 / kTicksPerS);
}

// Two packages: each thread's time counts on the package of the CPU it last ran on.
TEST(ProcessSource, SplitsTheObservedTimeByPackage) {
  SourceUnderTest t(4, 2);
  t.proc.set_per_cpu_ticks({10, 10, 20, 20}, {90, 90, 80, 80});
  t.proc.set_process({.pid = 300, .ppid = 1, .utime = 20, .processor = 0});
  t.proc.set_thread(300, {.pid = 300, .ppid = 1, .utime = 10, .processor = 0});
  t.proc.set_thread(300, {.pid = 301, .ppid = 1, .utime = 10, .processor = 3});
  t.observed->set_root(300);
  t.open();
  ASSERT_EQ(t.source->channels().size(), 9U);
  std::map<std::string, double> v0 = t.read();
  EXPECT_DOUBLE_EQ(v0["processes:cpu0:busy"], 20 / kTicksPerS);
  EXPECT_DOUBLE_EQ(v0["processes:cpu1:idle"], 160 / kTicksPerS);
  // Thread 300 works 6 ticks on package 0, thread 301 2 ticks on package 1.
  t.proc.set_process({.pid = 300, .ppid = 1, .utime = 16 + 12, .processor = 1});
  t.proc.set_thread(300, {.pid = 300, .ppid = 1, .utime = 16, .processor = 1});
  t.proc.set_thread(300, {.pid = 301, .ppid = 1, .utime = 12, .processor = 2});
  std::map<std::string, double> v1 = t.read();
  EXPECT_DOUBLE_EQ(v1["processes:cpu0:cpu-time"] - v0["processes:cpu0:cpu-time"], 6 / kTicksPerS);
  EXPECT_DOUBLE_EQ(v1["processes:cpu1:cpu-time"] - v0["processes:cpu1:cpu-time"], 2 / kTicksPerS);
  EXPECT_DOUBLE_EQ(v1["processes:cpu:cpu-time"] - v0["processes:cpu:cpu-time"], 8 / kTicksPerS);
}

TEST(ProcessSource, ReadsACgroupsUsageAndMembers) {
  FakeProc proc;
  proc.set_cgroup("system.slice/job.service", 2'500'000, {});
  proc.set_cgroup("system.slice/job.service/worker", 0, {71, 72});
  SourceOptions options;
  options.sysfs_root = proc.root_string();
  options.observed = ObservedProcesses::cgroup("/system.slice/job.service");
  std::unique_ptr<Source> source = make_process_activity_source(options);
  ASSERT_TRUE(source->availability().available) << source->availability().reason;
  std::vector<Reading> r(source->channels().size());
  source->read(r);
  ASSERT_TRUE(r[0].ok) << source->read_error(0);
  EXPECT_DOUBLE_EQ(r[0].value, 2.5);
  EXPECT_EQ(options.observed->pids(), (std::vector<pid_t>{71, 72}));
}

TEST(ProcessSource, AMissingCgroupIsUnavailableWithReason) {
  FakeProc proc;
  SourceOptions options;
  options.sysfs_root = proc.root_string();
  options.observed = ObservedProcesses::cgroup("/no/such/group");
  std::unique_ptr<Source> source = make_process_activity_source(options);
  EXPECT_FALSE(source->availability().available);
  EXPECT_TRUE(source->channels().empty());
  EXPECT_NE(source->availability().reason.find("cpu.stat"), std::string::npos)
      << source->availability().reason;
  EXPECT_NE(source->availability().fix.find("cgroup-v2"), std::string::npos);
}

TEST(ProcessSource, AGarbledStatIsAReadErrorNamingTheFile) {
  SourceUnderTest t;
  t.proc.set_process({.pid = 300, .ppid = 1, .utime = 10});
  t.observed->set_root(300);
  t.open();
  std::filesystem::path stat = t.proc.root() / "proc" / "300" / "stat";
  std::ofstream(stat) << "300 (x) S 1 banana\n";
  std::vector<Reading> r(t.source->channels().size());
  t.source->read(r);
  EXPECT_FALSE(r[0].ok);
  EXPECT_NE(t.source->read_error(0).find(stat.string()), std::string::npos)
      << t.source->read_error(0);
  EXPECT_TRUE(r[1].ok) << "the machine's channels still read";
}

}  // namespace
}  // namespace jouleprof
