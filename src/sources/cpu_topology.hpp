// Which package and core each CPU belongs to, from sysfs (<root>/sys/devices/system/cpu).
#pragma once

#include <filesystem>
#include <vector>

#include "jouleprof/result.hpp"

namespace jouleprof {

struct CpuTopology {
  int cpu = 0;
  int package = 0;  // topology/physical_package_id
  int core = 0;     // topology/core_id (the CPU number when the file is missing)
};

// Every cpuN directory of `cpu_dir`, in CPU order; an error names the file that could not be
// read, and kNotFound says there was no cpuN entry at all.
Result<std::vector<CpuTopology>> read_cpu_topology(const std::filesystem::path& cpu_dir);

}  // namespace jouleprof
