// Factories of every energy backend and the settings each reads. Each factory returns a valid
// Source; when the backend cannot work here, the source has no channels and its availability()
// says why and what to do. Each `*_settings()` lists the SourceOptions::settings keys its backend
// reads (declared once, beside the code that reads them); discovery rejects any other key.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "jouleprof/clock.hpp"
#include "jouleprof/source.hpp"

namespace jouleprof {

// RAPL through powercap sysfs (<root>/sys/class/powercap/intel-rapl:*), Intel and AMD.
std::unique_ptr<Source> make_rapl_powercap_source(const SourceOptions& options);
// RAPL through perf_event_open and the `power` PMU (<root>/sys/bus/event_source/devices/power).
std::unique_ptr<Source> make_rapl_perf_source(const SourceOptions& options);
// RAPL through <root>/dev/cpu/N/msr, Intel and AMD registers.
std::unique_ptr<Source> make_rapl_msr_source(const SourceOptions& options);
std::span<const std::string_view> rapl_msr_settings();
// NVIDIA GPUs through NVML, dlopen'ed at run time (JOULEPROF_NVML_LIBRARY overrides the path).
std::unique_ptr<Source> make_nvml_source(const SourceOptions& options);
std::span<const std::string_view> nvml_settings();
// AMD GPUs through ROCm SMI, dlopen'ed at run time (JOULEPROF_ROCM_SMI_LIBRARY overrides the path).
std::unique_ptr<Source> make_rocm_smi_source(const SourceOptions& options);
std::span<const std::string_view> rocm_smi_settings();
// Intel GPUs through Level Zero Sysman, dlopen'ed at run time (JOULEPROF_LEVEL_ZERO_LIBRARY
// overrides the path).
std::unique_ptr<Source> make_level_zero_source(const SourceOptions& options);
std::span<const std::string_view> level_zero_settings();
// hwmon power and energy sensors (<root>/sys/class/hwmon).
std::unique_ptr<Source> make_hwmon_source(const SourceOptions& options);
std::span<const std::string_view> hwmon_settings();
// The hwmon setting naming chips (comma-separated) whose sensors another backend in the run reads
// through its vendor's library (amdgpu: rocm-smi; i915, xe: level-zero): left out, so that no GPU
// is counted twice. Discovery adds the chips of the backends it takes.
inline constexpr std::string_view kHwmonSkipChipsSetting = "hwmon.skip-chips";
// Batteries and other supplies (<root>/sys/class/power_supply).
std::unique_ptr<Source> make_power_supply_source(const SourceOptions& options);
// Scripted power profiles; always labelled simulated.
std::unique_ptr<Source> make_simulated_source(const SourceOptions& options);
std::span<const std::string_view> simulated_settings();
// P = P_idle + (TDP − P_idle) × utilisation from <root>/proc/stat; always labelled estimated.
std::unique_ptr<Source> make_cpu_estimate_source(const SourceOptions& options);
std::span<const std::string_view> cpu_estimate_settings();
// CPU time of options.observed and of every CPU (<root>/proc), as busy-time channels; not an
// energy backend: it joins a run whenever processes are observed (sources/process_activity.hpp).
std::unique_ptr<Source> make_process_activity_source(const SourceOptions& options);
std::span<const std::string_view> process_activity_settings();

}  // namespace jouleprof

namespace jouleprof {

// Recorded traces (nvidia-smi logs, perf stat -I output, meter CSVs; see sources/power_log.hpp).
enum class PowerLogFormat : std::uint8_t {
  kAuto = 0,
  kNvidiaSmi = 1,
  kPerfStat = 2,
  kMeterCsv = 3
};
// Replays a recorded trace as a live source: its first sample plays at monotonic time
// `first_sample_at_ns`, later samples at the same distances; each read returns the last recorded
// value at or before now (what a poller would have seen). Labelled imported.
std::unique_ptr<Source> make_power_log_replay_source(const std::string& path, PowerLogFormat format,
                                                     TimeNs first_sample_at_ns);

}  // namespace jouleprof
