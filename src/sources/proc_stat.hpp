// /proc/stat's CPU lines, read by the CPU estimate and the process source.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "jouleprof/result.hpp"

namespace jouleprof {

// The aggregate `cpu` line of /proc/stat, in clock ticks.
struct CpuTimes {
  std::uint64_t busy = 0;   // user + nice + system + irq + softirq (guest time is inside user/nice)
  std::uint64_t idle = 0;   // idle + iowait
  std::uint64_t steal = 0;  // taken by the hypervisor: neither ours nor idle, left out of the model
  int cpus = 0;             // number of cpuN lines
};

Result<CpuTimes> parse_proc_stat(std::string_view text, std::string_view path);

// One `cpuN` line: busy and idle ticks of CPU N (same sums as CpuTimes).
struct CpuTicks {
  int cpu = 0;
  std::uint64_t busy = 0;
  std::uint64_t idle = 0;
};

// Every `cpuN` line, in file order; the aggregate line is not among them.
Result<std::vector<CpuTicks>> parse_proc_stat_per_cpu(std::string_view text, std::string_view path);

}  // namespace jouleprof
