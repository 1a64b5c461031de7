// Reading the options_json argument of the C API: a JSON object whose keys are checked against
// the ones a call knows, so that a misspelt key is an error instead of being ignored. Its fields
// are read with a JsonFields whose origin names the call ("jp_attribute options_json"), so the C
// API words its errors as every other JSON reader does.
#pragma once

#include <initializer_list>
#include <nlohmann/json.hpp>
#include <string_view>

#include "core/json_fields.hpp"
#include "jouleprof/result.hpp"
#include "jouleprof/sources.hpp"

namespace jouleprof::capi {

// NULL or "" → an empty object.
Result<nlohmann::json> parse_options_json(const char* options_json, const JsonFields& fields,
                                          std::initializer_list<std::string_view> known_keys);

// Which sources to open: `sources` (comma-separated names, NULL or "" for the default set) and
// the options' "sysfs_root" and "settings" keys.
Result<SourceOptions> source_options(const char* sources, const nlohmann::json& options,
                                     const JsonFields& fields);

}  // namespace jouleprof::capi
