// The kinds of device a framework workload runs on (libtorch's `--device`), and the channel
// devices each kind covers: kCpu the "cpu…" channels (cpu, cpu0, cpu1…), kCuda the "gpu…" ones.
// Named "cpu" and "cuda" in flags and files.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace jouleprof {

enum class DeviceKind : std::uint8_t {
  kCpu = 0,
  kCuda = 1,
};

std::string_view to_string(DeviceKind kind);
std::optional<DeviceKind> device_kind_from_string(std::string_view name);

// How the channel devices of a kind begin: "cpu" for kCpu, "gpu" for kCuda (device_names.hpp).
// Which channels a kind owns is device_selects(to_string(kind), channel device).
std::string_view channel_device_prefix(DeviceKind kind);

}  // namespace jouleprof
