// A GPU's per-process activity as the three cumulative busy-time counts that the attributor
// shares the GPU's energy by (docs/sharing.md, "The GPU rule"): the observed processes' busy
// seconds, every process's, and the seconds no process kept the GPU busy. Vendor-neutral: a GPU
// source feeds it what its library says about processes and publishes the counts as the channels
// of gpu_activity_channels, on the GPU's device.
//
//   GpuProcessActivity activity(monotonic_now_ns(), kNsPerS);
//   activity.add_utilisation(t_ns, elapsed_s, {{4242, 0.75}, {4343, 0.25}}, observed->pids());
//   // NVML: nvmlDeviceGetProcessUtilization's SM utilisation; ROCm SMI: cu_occupancy per
//   // poll (a share of compute units at the call, held over the interval: an approximation)
//   auto others = activity.add_holders(now, elapsed_s, running_pids, observed->pids());
//   // only a list of the processes holding the GPU: shares of 1 or 0, unknown when mixed
#pragma once

#include <sys/types.h>

#include <array>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "jouleprof/channel.hpp"
#include "jouleprof/clock.hpp"

namespace jouleprof {

// One process's share of a GPU over a sample period.
struct ProcessUtilisation {
  pid_t pid = 0;
  double utilisation = 0.0;  // share of the GPU it kept busy, 0..1 (clamped)
};

// Which of the three counts a channel publishes.
enum class GpuActivityCount { kObservedBusy, kBusy, kIdle };

class GpuProcessActivity {
 public:
  // Counts start at zero at `start_ns`. A sample that comes more than `max_sample_period_ns`
  // after the one before covers only that long: a longer silence is a GPU no process had work
  // on, i.e. idle, not one long sample.
  GpuProcessActivity(TimeNs start_ns, TimeNs max_sample_period_ns)
      : as_of_ns_(start_ns), max_sample_period_s_(ns_to_s(max_sample_period_ns)) {}

  // The processes sampled together at `t_ns`, `elapsed_s` after the previous sample: each was
  // busy its utilisation × the sample period; the rest of `elapsed_s` is idle. `observed` is
  // sorted (ObservedProcesses::pids).
  void add_utilisation(TimeNs t_ns, double elapsed_s, std::span<const ProcessUtilisation> samples,
                       const std::vector<pid_t>& observed);

  // The processes holding the GPU at `t_ns`, for the `elapsed_s` since the previous call, where
  // the library says who holds the GPU but not who works on it: the whole time is busy while
  // any process holds it, and the observed processes' when only they do. When observed
  // processes hold it beside others nothing is counted (their share is unknown) and the others
  // are returned; else the result is empty.
  std::vector<pid_t> add_holders(TimeNs t_ns, double elapsed_s, std::span<const pid_t> holders,
                                 const std::vector<pid_t>& observed);

  double count(GpuActivityCount which) const;
  // The time the counts stand at (the newest sample's).
  TimeNs as_of_ns() const { return as_of_ns_; }

 private:
  TimeNs as_of_ns_;
  double max_sample_period_s_;
  double observed_busy_s_ = 0.0;
  double busy_s_ = 0.0;
  double idle_s_ = 0.0;
};

// A busy-time channel of a GPU's per-process activity, as gpu_activity_channels describes it.
struct GpuActivityChannel {
  std::string_view id_suffix;  // "observed", "busy", "idle"
  std::string domain;          // the rule for the observed count; "busy", "idle"
  std::string description;     // for Channel::provenance_detail
  GpuActivityCount count;
};

// The three channels a GPU source adds per GPU (ChannelKind::kBusyTime on the GPU's device, a
// `domain` each, as find_device_activity in process_share.hpp pairs them with the GPU's energy):
// `rule` names the rule ("gpu-utilisation", "gpu-sole-user"), `how` says where the counts come
// from ("nvmlDeviceGetProcessUtilization on gpu 0: …").
std::array<GpuActivityChannel, 3> gpu_activity_channels(std::string_view rule,
                                                        std::string_view how);

}  // namespace jouleprof
