// The process source's pieces, exposed for tests: /proc/<pid>/stat and cgroup cpu.stat parsing,
// and the bookkeeping that turns successive snapshots of a process tree into its CPU time.
//
// The source itself (make_process_activity_source in backends.hpp) reads, every period, the CPU
// time of the observed processes and of all CPUs, as cumulative busy-time channels
// (ChannelKind::kBusyTime, seconds):
//   processes:cpu:cpu-time   the observed processes (domain "cpu-time": the rule that shares by it)
//   processes:cpu:busy       every CPU's busy time (/proc/stat user+nice+system+irq+softirq)
//   processes:cpu:idle       every CPU's idle time (idle+iowait)
//   processes:cpu<P>:…       the same per package when the machine has more than one
//   processes:thread:<tid>   one observed thread's own CPU time (setting processes.threads = 1);
//                            added as threads appear, at most kMaxThreadChannels
// It never attributes: the attributor turns these into shares (docs/sharing.md).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <string_view>
#include <vector>

#include "jouleprof/result.hpp"

namespace jouleprof::process_activity {

// The source's name, as Monitor::unavailable() names it when it cannot observe.
inline constexpr std::string_view kSourceName = "processes";

// Threads that get a channel of their own; later ones are counted in their process only (their
// spans then weigh as a thread without a CPU-time series: 1).
inline constexpr std::size_t kMaxThreadChannels = 256;

// The fields of /proc/<pid>/stat (or /proc/<pid>/task/<tid>/stat) the source uses; ticks are
// clock ticks (sysconf(_SC_CLK_TCK)).
struct TaskStat {
  pid_t pid = 0;
  pid_t ppid = 0;
  char state = '?';
  std::uint64_t utime = 0;
  std::uint64_t stime = 0;
  std::uint64_t cutime = 0;  // children it waited for, and their waited-for descendants
  std::uint64_t cstime = 0;
  std::uint64_t start_time = 0;  // ticks after boot: tells a reused pid apart
  int processor = -1;            // the CPU it last ran on

  std::uint64_t own_ticks() const { return utime + stime; }
  std::uint64_t total_ticks() const { return utime + stime + cutime + cstime; }
};

// `comm` may hold spaces and parentheses: the fields start after the last ')'.
Result<TaskStat> parse_task_stat(std::string_view text, std::string_view path);

// usage_usec of a cgroup-v2 cpu.stat.
Result<std::uint64_t> parse_cgroup_usage_usec(std::string_view text, std::string_view path);

// The CPU time of a process tree, from successive snapshots (docs/sharing.md "Process trees"):
// the live members' own and reaped children's ticks, plus the last-seen ticks of members that
// ended outside the tree's reach (the root reaped by jouleprof, orphans reaped by init). A member
// reaped by a live member is not added again: its time is in the reaper's cutime/cstime.
// Members are remembered, so an orphan re-parented to init stays observed. The total never
// decreases (a reap seen half way between two reads cannot make it dip).
class TreeCpuTime {
 public:
  // `processes`: the stat of every process that may belong to the tree now (at least the root,
  // the members and their children); others are ignored. Returns the tree's ticks.
  std::uint64_t update(pid_t root, const std::vector<TaskStat>& processes);
  std::uint64_t ticks() const { return last_; }
  // Members alive at the last update, in pid order.
  std::vector<pid_t> live_members() const;
  // Every process that was a member at some update.
  const std::vector<pid_t>& all_members() const { return ever_; }

 private:
  struct Member {
    std::uint64_t start_time = 0;
    pid_t ppid = 0;
    std::uint64_t ticks = 0;
  };
  std::map<pid_t, Member> members_;
  std::vector<pid_t> ever_;
  std::uint64_t retired_ = 0;
  std::uint64_t last_ = 0;
};

}  // namespace jouleprof::process_activity
