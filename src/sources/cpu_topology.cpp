#include "sources/cpu_topology.hpp"

#include <fmt/format.h>

#include <string>

#include "sources/sysfs_file.hpp"

namespace jouleprof {

Result<std::vector<CpuTopology>> read_cpu_topology(const std::filesystem::path& cpu_dir) {
  JP_TRY(const auto entries, sysfs::list_directory(cpu_dir));
  std::vector<CpuTopology> cpus;
  for (const std::string& entry : entries) {
    if (entry.size() < 4 || entry.substr(0, 3) != "cpu" ||
        entry.find_first_not_of("0123456789", 3) != std::string::npos) {
      continue;
    }
    const auto topology = cpu_dir / entry / "topology";
    JP_TRY(const std::int64_t package, sysfs::read_signed(topology / "physical_package_id"));
    auto core = sysfs::read_signed(topology / "core_id");
    cpus.push_back({std::stoi(entry.substr(3)), static_cast<int>(package),
                    core ? static_cast<int>(*core) : std::stoi(entry.substr(3))});
  }
  if (cpus.empty())
    return Error(ErrorCode::kNotFound, fmt::format("{}: no cpuN entries", cpu_dir.string()));
  return cpus;
}

}  // namespace jouleprof
