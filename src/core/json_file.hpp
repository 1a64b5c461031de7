// JSON documents from text jouleprof is given, with the one error every reader gives for text
// that is not JSON: "<origin>: not valid JSON: <where the parser stopped and why>", and the one
// for an object that gives a key twice (core/unique_keys_parser.hpp).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "jouleprof/result.hpp"

namespace jouleprof {

// `origin` names where the text came from (a file, "settings") in the error.
Result<nlohmann::json> parse_json(std::string_view text, std::string_view origin);

// "<origin>: traceEvents[3]: key 'ts' appears twice in one object, and JSON does not say which
// value holds"; without `object_path` (a reader that does not know it): "<origin>: key 'ts' …".
Error repeated_key_error(std::string_view origin, std::string_view object_path,
                         std::string_view key);

// That error for `text`, which the parser refused with `parser_error` (nlohmann's what()). A NUL
// byte is named where it is: the parser reads one as the end of the text and would say the text
// ends early.
Error not_json_error(std::string_view origin, std::string_view text, std::string_view parser_error);

// The most a JSON file read whole may hold, unless its reader states its own limit: the settings,
// tables and records read this way (recording metadata, PRE models, kernel spaces and data sets,
// fusion rules, predictor bundles, FECoM records) are kilobytes to tens of megabytes, and a parsed
// document takes several times its text.
inline constexpr std::uint64_t kMaxJsonFileBytes = std::uint64_t{256} << 20;

// The file read as read_text_file does (`what` names the kind of file in its errors), refused
// beyond kMaxJsonFileBytes, then parsed.
Result<nlohmann::json> read_json_file(const std::string& path, std::string_view what);

}  // namespace jouleprof
