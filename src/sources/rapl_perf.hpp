// RAPL through perf_event_open and the `power` PMU: the pieces of the backend that tests reach
// directly. The system calls sit behind PerfEventSyscalls because a test cannot create a perf
// event; everything else (PMU discovery, event strings, scale, units, error wording) runs the same
// code with real files in a fake tree.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "jouleprof/result.hpp"
#include "jouleprof/source.hpp"

namespace jouleprof {

class PerfEventSyscalls {
 public:
  virtual ~PerfEventSyscalls() = default;
  // A system-wide counting event (pid -1) on `cpu`: a file descriptor, or -errno.
  virtual int open_event(std::uint32_t pmu_type, std::uint64_t config, int cpu) = 0;
  // The event's 64-bit count: 0, or -errno.
  virtual int read_count(int fd, std::uint64_t* count) = 0;
  virtual void close_event(int fd) = 0;
};

// The real system calls.
std::unique_ptr<PerfEventSyscalls> make_linux_perf_event_syscalls();

// make_rapl_perf_source with the system calls supplied by the caller.
std::unique_ptr<Source> make_rapl_perf_source(const SourceOptions& options,
                                              std::unique_ptr<PerfEventSyscalls> syscalls);

// One `energy-*` event of the power PMU, as sysfs describes it.
struct PerfEnergyEvent {
  std::string name;          // "energy-pkg"
  std::uint64_t config = 0;  // from "event=0x02" and format/event ("config:0-7")
  double scale_j = 0.0;      // joules per count, from energy-pkg.scale
};

// "event=0x02[,term=value…]" placed into the config word by the PMU's format files
// (<pmu_dir>/format/<term>, e.g. "config:0-7").
Result<std::uint64_t> parse_perf_event_config(const std::filesystem::path& pmu_dir,
                                              std::string_view event_string);

// A sysfs CPU list: "0", "0,18", "0-3,8-11".
Result<std::vector<int>> parse_cpu_list(const std::filesystem::path& file, std::string_view text);

// Every energy-* event under <pmu_dir>/events with its config and scale; events whose unit is not
// Joules or whose files are unusable are left out and described in `skipped`.
std::vector<PerfEnergyEvent> discover_perf_energy_events(const std::filesystem::path& pmu_dir,
                                                         std::vector<std::string>& skipped);

}  // namespace jouleprof
