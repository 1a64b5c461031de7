#include "sources/setting_values.hpp"

#include <fmt/format.h>

#include "core/parse.hpp"

namespace jouleprof {

Result<double> parse_number_between(std::string_view where, std::string_view field,
                                    std::string_view text, double min, double max) {
  JP_TRY(const double value, parse_number(where, field, text));
  if (value < min || value > max) {
    return invalid_input(where, field, text, fmt::format("must be between {} and {}", min, max));
  }
  return value;
}

Result<double> setting_number(const SettingsMap& settings, const std::string& key, double fallback,
                              double min, double max) {
  const auto it = settings.find(key);
  if (it == settings.end()) return fallback;
  return parse_number_between("settings", key, it->second, min, max);
}

}  // namespace jouleprof
