#include "sources/setting_values.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cmath>

namespace jouleprof {

Result<double> parse_number(std::string_view where, std::string_view field, std::string_view text,
                            double min, double max) {
  double value = 0.0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc() || ptr != end || !std::isfinite(value)) {
    return invalid_input(where, field, text, "not a number");
  }
  if (value < min || value > max) {
    return invalid_input(where, field, text, fmt::format("must be between {} and {}", min, max));
  }
  return value;
}

Result<double> setting_number(const SettingsMap& settings, const std::string& key, double fallback,
                              double min, double max) {
  const auto it = settings.find(key);
  if (it == settings.end()) return fallback;
  return parse_number("settings", key, it->second, min, max);
}

}  // namespace jouleprof
