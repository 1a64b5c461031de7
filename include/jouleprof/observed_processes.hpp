// Observed processes: whose energy a run reports besides the machine's (docs/sharing.md). On a
// shared machine every counter counts every process; the processes named here are "yours", and
// the attributor gives them their share of each counter by their activity.
//
//   auto observed = ObservedProcesses::process_tree();  // the root is set once it exists
//   monitor_options.sources.observed = observed;         // the process source reads it
//   … spawn the command …
//   observed->set_root(child.pid());
//
// A process tree is its root and every descendant, including children that have exited (their
// CPU time reaches their parent's cutime/cstime when they are reaped); a cgroup is every process
// of a cgroup-v2 group and of its sub-groups (a container, a pod, a systemd unit).
//
// Threads: the root may be set from any thread while a sampler reads; `publish` and `pids` are
// mutually safe too (the process source publishes what it found, GPU sources read it).
#pragma once

#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace jouleprof {

class ObservedProcesses {
 public:
  enum class Kind : std::uint8_t { kProcessTree, kCgroup };

  // root 0: not known yet (observes nothing until set_root).
  static std::shared_ptr<ObservedProcesses> process_tree(pid_t root = 0);
  // `path`: the group's directory (/sys/fs/cgroup/system.slice/x.service) or its path inside
  // the cgroup hierarchy as /proc/PID/cgroup shows it (/system.slice/x.service).
  static std::shared_ptr<ObservedProcesses> cgroup(std::string path);

  Kind kind() const { return kind_; }
  pid_t root() const { return root_.load(std::memory_order_acquire); }
  void set_root(pid_t pid) { root_.store(pid, std::memory_order_release); }
  const std::string& cgroup_path() const { return cgroup_path_; }
  // "pid 1234 and its descendants", "cgroup /system.slice/x.service".
  std::string describe() const;

  // Every process found in the observed set so far in this run, including those that have
  // exited (late per-process samples of a GPU still name them).
  void publish(const std::vector<pid_t>& members);
  std::vector<pid_t> pids() const;

 private:
  ObservedProcesses(Kind kind, pid_t root, std::string cgroup_path)
      : kind_(kind), root_(root), cgroup_path_(std::move(cgroup_path)) {}

  Kind kind_;
  std::atomic<pid_t> root_;
  std::string cgroup_path_;
  mutable std::mutex mutex_;  // guards pids_
  std::vector<pid_t> pids_;   // sorted, unique
};

}  // namespace jouleprof
