// Reading the options_json argument of the C API: a JSON object whose keys are checked against
// the ones a call knows, so that a misspelt key is an error instead of being ignored.
#pragma once

#include <initializer_list>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "jouleprof/result.hpp"
#include "jouleprof/sources.hpp"

namespace jouleprof::capi {

// NULL or "" → an empty object. `call` names the C function in error messages.
Result<nlohmann::json> parse_options_json(const char* options_json, std::string_view call,
                                          std::initializer_list<std::string_view> known_keys);

// The value at `key` if present, checked to be of the expected kind.
Result<bool> option_bool(const nlohmann::json& options, std::string_view call, const char* key,
                         bool fallback);
Result<std::string> option_string(const nlohmann::json& options, std::string_view call,
                                  const char* key, std::string fallback);
// A JSON number or string written as text (settings values, which backends parse themselves).
Result<std::string> option_text(const nlohmann::json& value, std::string_view call,
                                std::string_view key);

// Which sources to open: `sources` (comma-separated names, NULL or "" for the default set) and
// the options' "sysfs_root" and "settings" keys.
Result<SourceOptions> source_options(const char* sources, const nlohmann::json& options,
                                     std::string_view call);

}  // namespace jouleprof::capi
