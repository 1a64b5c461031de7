#include "sources/cpu_topology.hpp"

#include <fmt/format.h>

#include <limits>
#include <string>

#include "core/parse.hpp"
#include "sources/sysfs_file.hpp"

namespace jouleprof {

Result<std::vector<CpuTopology>> read_cpu_topology(const std::filesystem::path& cpu_dir) {
  JP_TRY(const auto entries, sysfs::list_directory(cpu_dir));
  std::vector<CpuTopology> cpus;
  for (const std::string& entry : entries) {
    const std::optional<std::int64_t> number =
        entry.size() >= 4 && entry.substr(0, 3) == "cpu" &&
                entry.find_first_not_of("0123456789", 3) == std::string::npos
            ? to_int64(std::string_view(entry).substr(3))
            : std::nullopt;
    if (!number || *number > std::numeric_limits<int>::max()) continue;
    const int cpu = static_cast<int>(*number);
    const auto topology = cpu_dir / entry / "topology";
    JP_TRY(const std::int64_t package, sysfs::read_signed(topology / "physical_package_id"));
    auto core = sysfs::read_signed(topology / "core_id");
    cpus.push_back({cpu, static_cast<int>(package), core ? static_cast<int>(*core) : cpu});
  }
  if (cpus.empty())
    return Error(ErrorCode::kNotFound, fmt::format("{}: no cpuN entries", cpu_dir.string()));
  return cpus;
}

}  // namespace jouleprof
