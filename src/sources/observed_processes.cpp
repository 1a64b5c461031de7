#include "jouleprof/observed_processes.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace jouleprof {

std::shared_ptr<ObservedProcesses> ObservedProcesses::process_tree(pid_t root) {
  return std::shared_ptr<ObservedProcesses>(new ObservedProcesses(Kind::kProcessTree, root, ""));
}

std::shared_ptr<ObservedProcesses> ObservedProcesses::cgroup(std::string path) {
  return std::shared_ptr<ObservedProcesses>(
      new ObservedProcesses(Kind::kCgroup, 0, std::move(path)));
}

std::string ObservedProcesses::describe() const {
  if (kind_ == Kind::kCgroup) return "cgroup " + cgroup_path_;
  const pid_t pid = root();
  return pid > 0 ? fmt::format("pid {} and its descendants", pid)
                 : std::string("a process tree not started yet");
}

void ObservedProcesses::publish(const std::vector<pid_t>& members) {
  std::lock_guard lock(mutex_);
  for (pid_t p : members) {
    const auto at = std::lower_bound(pids_.begin(), pids_.end(), p);
    if (at == pids_.end() || *at != p) pids_.insert(at, p);
  }
}

std::vector<pid_t> ObservedProcesses::pids() const {
  std::lock_guard lock(mutex_);
  return pids_;
}

}  // namespace jouleprof
