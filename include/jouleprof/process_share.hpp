// Process shares: the observed processes' part of each energy channel on a shared machine
// (docs/sharing.md). A share is an attribution, not a measurement: every figure it gives is
// labelled `attributed:<rule>`.
//
//   JP_RETURN_IF_ERROR(attribute_process_shares(profile, ProcessShareOptions{}));
//   // profile.channels[i].process: energy_j, share, rule …; warnings added
//
// In each interval between two readings of the activity channels (ChannelKind::kBusyTime) of an
// energy channel's device:
//   share   = Δ observed processes' busy time / Δ busy time of every process on the device
//   dynamic = E − P_idle · Δt          (E: the channel's energy in the interval)
//   process = share · dynamic + the static part by the StaticShare rule
// P_idle is the measured idle baseline (ChannelSummary::idle_power_w) or, for a model, the
// channel's Channel::static_power_w.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "jouleprof/channel.hpp"
#include "jouleprof/profile.hpp"
#include "jouleprof/result.hpp"
#include "jouleprof/static_share.hpp"

namespace jouleprof {

struct ProcessShareOptions {
  StaticShare static_share = StaticShare::kCpuTime;
  // A warning when other processes did more than this share of a device's work during the run.
  double others_warning_share = 0.20;
  // A warning when the idle baseline window was busier than this (busy / (busy + idle)).
  double idle_window_max_busy = 0.10;
  // The window the figures cover; default: the run window (meta.begin_ns, meta.end_ns).
  std::optional<TimeNs> window_begin_ns;
  std::optional<TimeNs> window_end_ns;
  // false: the figures only (a re-attribution over another window says nothing twice).
  bool add_warnings = true;
};

// The activity channels that share out a channel on `energy_device`: the observed processes'
// busy time, every process's, and the device's idle time (optional), as indices into `channels`.
// CPU packages ("cpu0") use their own when the source splits by package, else the whole CPU's;
// "platform" (RAPL psys) uses the whole CPU's. nullopt: no rule applies to the device.
struct DeviceActivity {
  std::size_t observed = 0;
  std::size_t busy = 0;
  std::optional<std::size_t> idle;
  std::string rule;  // the observed channel's domain: "cpu-time", "gpu-utilisation", …
};
std::optional<DeviceActivity> find_device_activity(const std::vector<Channel>& channels,
                                                   std::string_view energy_device);

// Whether a busy-time channel counts the observed processes (its domain names the rule), every
// process ("busy"), idle time ("idle") or one thread ("thread").
bool is_observed_activity(const Channel& channel);

// One interval's process energy: `energy_j` measured, `static_j` of it idle (P_idle · Δt; 0 when
// unknown, which only the cpu-time rule allows), `share` of the dynamic work observed.
double interval_process_energy_j(double energy_j, double static_j, double share, StaticShare rule);

// Fills the process fields of profile.channels over the window (default: the run window) from
// the profile's busy-time series, and adds the warnings of docs/sharing.md: other processes did
// much of a device's work; the idle baseline window (meta.options idle.begin_ns/idle.end_ns) was
// not idle; a channel has no per-process rule. Without observed-activity series it changes
// nothing.
Status attribute_process_shares(Profile& profile, const ProcessShareOptions& options);

}  // namespace jouleprof
