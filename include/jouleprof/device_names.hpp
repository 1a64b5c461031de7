// How CPU devices are named, so that a track and a channel meet without renaming either:
//
//   "cpu<P>"  one CPU package (physical package id P): RAPL domains, the recorder's thread tracks
//             (the package the thread ran on when it registered), imported CPU traces;
//   "cpu"     the whole CPU, every package together: sources that cannot tell packages apart
//             (the CPU-utilisation estimate, perf stat's summed energy events).
//
// A track consumes a channel of its own device, and a track on any package consumes the channels
// of the whole CPU. GPUs ("gpu<N>") and other devices match by equality only. A channel that
// names no device (a hand-written samples.csv) is consumed by every track.
#pragma once

#include <string_view>

namespace jouleprof {

inline constexpr std::string_view kWholeCpuDevice = "cpu";

// Whether `device` names one CPU package ("cpu0", "cpu12").
bool is_cpu_package_device(std::string_view device);

// Whether spans on a track of `track_device` draw energy from a channel of `channel_device`.
bool track_consumes_device(std::string_view track_device, std::string_view channel_device);

}  // namespace jouleprof
