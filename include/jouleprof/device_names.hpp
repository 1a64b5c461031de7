// How devices are named, so that a track, a channel, a calibration and a workload meet without
// renaming any of them:
//
//   "cpu<P>"  one CPU package (physical package id P): RAPL domains, the recorder's thread tracks
//             (the package the thread ran on when it registered), imported CPU traces;
//   "cpu"     the whole CPU, every package together: sources that cannot tell packages apart
//             (the CPU-utilisation estimate, perf stat's summed energy events);
//   "gpu<N>"  one GPU; "gpu" and "cuda" (a framework's name) mean every GPU.
#pragma once

#include <string_view>

namespace jouleprof {

inline constexpr std::string_view kWholeCpuDevice = "cpu";

// The one device matcher: whether `selector` names `device`. A name selects itself; "cpu" also
// selects each package, "gpu" and "cuda" each GPU; "" selects every device. It answers every
// "which belongs to which": a track consumes the channels whose device selects the track's (so a
// package's threads consume the whole CPU's channels, and a channel that names no device, as in a
// hand-written samples.csv, feeds every track); a calibration for "cuda" applies to the channels
// of every GPU; a workload on "cpu" owns the CPU's channels.
bool device_selects(std::string_view selector, std::string_view device);

}  // namespace jouleprof
