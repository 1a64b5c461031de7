// A fake /proc (and the sysfs CPU topology) in a temporary directory, for the process source and
// what it feeds: processes, threads, reaped children and /proc/stat ticks are set by the test and
// read through the real code paths (SourceOptions::sysfs_root).
#pragma once

#include <fmt/format.h>
#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "test_support.hpp"

namespace jouleprof::testing {

struct FakeTask {
  pid_t pid = 0;
  pid_t ppid = 1;
  std::string comm = "task";
  std::uint64_t utime = 0;
  std::uint64_t stime = 0;
  std::uint64_t cutime = 0;
  std::uint64_t cstime = 0;
  std::uint64_t start_time = 1000;
  int processor = 0;
  char state = 'S';
};

// proc(5)'s stat line: 52 fields, the ones the process source reads set from `t`.
inline std::string stat_line(const FakeTask& t) {
  std::string line =
      fmt::format("{} ({}) {} {} 1 1 0 -1 4194560 10 0 0 0 {} {} {} {} 20 0 1 0 {}", t.pid, t.comm,
                  t.state, t.ppid, t.utime, t.stime, t.cutime, t.cstime, t.start_time);
  // Fields 23..38 (vsize … exit_signal), then 39 processor and 13 more.
  for (int field = 23; field <= 38; ++field) line += " 0";
  line += fmt::format(" {}", t.processor);
  for (int field = 40; field <= 52; ++field) line += " 0";
  return line + "\n";
}

class FakeProc {
 public:
  explicit FakeProc(int cpus = 2, int packages = 1) : cpus_(cpus) {
    for (int c = 0; c < cpus; ++c) {
      dir_.write(fmt::format("sys/devices/system/cpu/cpu{}/topology/physical_package_id", c),
                 std::to_string(c * packages / cpus) + "\n");
    }
    set_cpu_ticks(0, 0);
  }

  const std::filesystem::path& root() const { return dir_.path(); }
  std::string root_string() const { return dir_.path().string(); }

  // /proc/stat with `busy` and `idle` ticks spread evenly over the CPUs (user and idle fields).
  void set_cpu_ticks(std::uint64_t busy, std::uint64_t idle) {
    std::vector<std::uint64_t> per_busy(static_cast<std::size_t>(cpus_), busy / cpus_);
    std::vector<std::uint64_t> per_idle(static_cast<std::size_t>(cpus_), idle / cpus_);
    per_busy[0] += busy % cpus_;
    per_idle[0] += idle % cpus_;
    set_per_cpu_ticks(per_busy, per_idle);
  }
  void set_per_cpu_ticks(const std::vector<std::uint64_t>& busy,
                         const std::vector<std::uint64_t>& idle) {
    std::uint64_t b = 0;
    std::uint64_t i = 0;
    std::string lines;
    for (std::size_t c = 0; c < busy.size(); ++c) {
      b += busy[c];
      i += idle[c];
      lines += fmt::format("cpu{} {} 0 0 {} 0 0 0 0 0 0\n", c, busy[c], idle[c]);
    }
    dir_.write("proc/stat",
               fmt::format("cpu  {} 0 0 {} 0 0 0 0 0 0\n{}intr 1\nctxt 1\n", b, i, lines));
  }

  // A process and its main thread (tid == pid). Threads beside it with add_thread.
  void set_process(const FakeTask& t, bool children_files = false) {
    dir_.write(fmt::format("proc/{}/stat", t.pid), stat_line(t));
    FakeTask main_thread = t;
    main_thread.cutime = main_thread.cstime = 0;
    dir_.write(fmt::format("proc/{}/task/{}/stat", t.pid, t.pid), stat_line(main_thread));
    if (children_files) set_children(t.pid, {});
  }
  void set_thread(pid_t pid, const FakeTask& thread) {
    dir_.write(fmt::format("proc/{}/task/{}/stat", pid, thread.pid), stat_line(thread));
  }
  void set_children(pid_t pid, const std::vector<pid_t>& children) {
    std::string text;
    for (pid_t c : children) text += fmt::format("{} ", c);
    dir_.write(fmt::format("proc/{}/task/{}/children", pid, pid), text);
  }
  void remove_process(pid_t pid) {
    std::filesystem::remove_all(dir_.path() / "proc" / std::to_string(pid));
  }
  void remove_thread(pid_t pid, pid_t tid) {
    std::filesystem::remove_all(dir_.path() / "proc" / std::to_string(pid) / "task" /
                                std::to_string(tid));
  }
  // A cgroup-v2 group at sys/fs/cgroup/<path> with its cpu.stat and cgroup.procs.
  void set_cgroup(const std::string& path, std::uint64_t usage_usec,
                  const std::vector<pid_t>& procs) {
    dir_.write(fmt::format("sys/fs/cgroup/{}/cpu.stat", path),
               fmt::format("usage_usec {}\nuser_usec {}\nsystem_usec 0\n", usage_usec, usage_usec));
    std::string text;
    for (pid_t p : procs) text += fmt::format("{}\n", p);
    dir_.write(fmt::format("sys/fs/cgroup/{}/cgroup.procs", path), text);
  }

 private:
  TempDir dir_;
  int cpus_;
};

}  // namespace jouleprof::testing
