// Typed reads of SourceOptions::settings (string key -> string value), with errors that name the
// setting and the value.
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "jouleprof/result.hpp"

namespace jouleprof {

using SettingsMap = std::map<std::string, std::string>;

// A number (core/parse.hpp's rule) in [min, max]; the error names where, field and value.
Result<double> parse_number_between(std::string_view where, std::string_view field,
                                    std::string_view text, double min, double max);

// settings[key] as a number in [min, max], or `fallback` when the key is absent.
Result<double> setting_number(const SettingsMap& settings, const std::string& key, double fallback,
                              double min, double max);

}  // namespace jouleprof
