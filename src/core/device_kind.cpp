#include "jouleprof/device_kind.hpp"

#include <array>

namespace jouleprof {
namespace {

struct KindNames {
  std::string_view name;            // in flags and files
  std::string_view channel_prefix;  // of the channel devices of this kind (device_names.hpp)
};

constexpr std::array<KindNames, 2> kKinds{KindNames{"cpu", "cpu"}, KindNames{"cuda", "gpu"}};

const KindNames& names_of(DeviceKind kind) { return kKinds.at(static_cast<std::size_t>(kind)); }

}  // namespace

std::string_view to_string(DeviceKind kind) { return names_of(kind).name; }

std::optional<DeviceKind> device_kind_from_string(std::string_view name) {
  for (std::size_t i = 0; i < kKinds.size(); ++i) {
    if (kKinds[i].name == name) return static_cast<DeviceKind>(i);
  }
  return std::nullopt;
}

std::string_view channel_device_prefix(DeviceKind kind) { return names_of(kind).channel_prefix; }

}  // namespace jouleprof
