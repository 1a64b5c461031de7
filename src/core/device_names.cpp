#include "jouleprof/device_names.hpp"

#include <algorithm>

namespace jouleprof {
namespace {

// `device` is `prefix` followed by one or more digits ("cpu0", "gpu12").
bool numbered(std::string_view device, std::string_view prefix) {
  if (device.size() <= prefix.size() || !device.starts_with(prefix)) return false;
  const std::string_view digits = device.substr(prefix.size());
  return std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace

bool device_selects(std::string_view selector, std::string_view device) {
  if (selector.empty() || selector == device) return true;
  if (selector == kWholeCpuDevice) return numbered(device, "cpu");
  if (selector == "gpu" || selector == "cuda") return device == "gpu" || numbered(device, "gpu");
  return false;
}

}  // namespace jouleprof
