// Pieces of the CPU estimate exposed for tests: /proc/stat parsing and the TDP table.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

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

// TDP of a known CPU model from a small built-in table (docs/sources.md lists it); matches a
// table key as a whole word inside /proc/cpuinfo's `model name`.
std::optional<double> tdp_from_model_w(std::string_view model_name);

}  // namespace jouleprof
