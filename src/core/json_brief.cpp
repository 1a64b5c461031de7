#include "core/json_brief.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace jouleprof {
namespace {

template <typename Json>
std::string brief(const Json& value) {
  constexpr std::size_t kMaxStringChars = 80;
  constexpr std::size_t kMaxShownElements = 8;
  const auto text = [](const Json& v) {
    return v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  };
  if (value.is_structured()) {
    // Small and flat: shown as it is; dumping it cannot recurse further than one level.
    const bool flat = value.size() <= kMaxShownElements &&
                      std::all_of(value.begin(), value.end(), [&](const Json& e) {
                        return !e.is_structured() &&
                               !(e.is_string() &&
                                 e.template get_ref<const std::string&>().size() > kMaxStringChars);
                      });
    if (flat) return text(value);
    const char* unit = value.is_array() ? "element" : "member";
    return fmt::format("{} of {} {}{}", value.is_array() ? "an array" : "an object", value.size(),
                       unit, value.size() == 1 ? "" : "s");
  }
  if (value.is_string() && value.template get_ref<const std::string&>().size() > kMaxStringChars) {
    const std::string& s = value.template get_ref<const std::string&>();
    return text(Json(s.substr(0, kMaxStringChars))) +
           fmt::format(" (cut, {} bytes in all)", s.size());
  }
  return text(value);
}

}  // namespace

std::string json_brief(const nlohmann::json& value) { return brief(value); }

}  // namespace jouleprof
