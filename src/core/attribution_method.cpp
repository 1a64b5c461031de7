#include "jouleprof/attribution_method.hpp"

#include <array>

namespace jouleprof {
namespace {

constexpr std::array<std::string_view, 6> kMethodNames{"auto",    "interpolate", "hold",
                                                       "regress", "calibrated",  "time-split"};

}  // namespace

std::string_view to_string(AttributionMethod m) {
  const auto i = static_cast<std::size_t>(m);
  return i < kMethodNames.size() ? kMethodNames[i] : "unknown";
}

std::string_view recorded_method_name(const std::optional<AttributionMethod>& m) {
  return m ? to_string(*m) : std::string_view("none");
}

std::optional<AttributionMethod> attribution_method_from_string(std::string_view s) {
  for (std::size_t i = 0; i < kMethodNames.size(); ++i) {
    if (kMethodNames[i] == s) return static_cast<AttributionMethod>(i);
  }
  if (s == "time_split" || s == "timesplit") return AttributionMethod::kTimeSplit;
  return std::nullopt;
}

}  // namespace jouleprof
