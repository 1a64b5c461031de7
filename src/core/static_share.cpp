#include "jouleprof/static_share.hpp"

#include <array>
#include <cstddef>

namespace jouleprof {
namespace {

// Index = the value's fixed number.
constexpr std::array<std::string_view, 3> kStaticShareNames{"cpu-time", "none", "all"};

}  // namespace

std::string_view to_string(StaticShare s) {
  const auto i = static_cast<std::size_t>(s);
  return i < kStaticShareNames.size() ? kStaticShareNames[i] : "unknown";
}

std::optional<StaticShare> static_share_from_string(std::string_view s) {
  for (std::size_t i = 0; i < kStaticShareNames.size(); ++i) {
    if (kStaticShareNames[i] == s) return static_cast<StaticShare>(i);
  }
  return std::nullopt;
}

}  // namespace jouleprof
