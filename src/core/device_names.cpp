#include "jouleprof/device_names.hpp"

#include <algorithm>

namespace jouleprof {

bool is_cpu_package_device(std::string_view device) {
  constexpr std::string_view prefix = kWholeCpuDevice;
  if (device.size() <= prefix.size() || device.substr(0, prefix.size()) != prefix) return false;
  const std::string_view digits = device.substr(prefix.size());
  return std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; });
}

bool track_consumes_device(std::string_view track_device, std::string_view channel_device) {
  if (track_device == channel_device || channel_device.empty()) return true;
  return channel_device == kWholeCpuDevice && is_cpu_package_device(track_device);
}

}  // namespace jouleprof
