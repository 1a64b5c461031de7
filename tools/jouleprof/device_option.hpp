// --device: the kind of device a libtorch command runs on (cpu or cuda).
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "enum_option.hpp"
#include "jouleprof/device_kind.hpp"

namespace jouleprof::cli {

inline CLI::Option* add_device_option(CLI::App& command, DeviceKind& device,
                                      const std::string& help) {
  EnumNames<DeviceKind> names;
  for (DeviceKind kind : {DeviceKind::kCpu, DeviceKind::kCuda}) {
    names.emplace_back(std::string(to_string(kind)), kind);
  }
  return add_enum_option(command, "--device", device, std::move(names), help);
}

}  // namespace jouleprof::cli
