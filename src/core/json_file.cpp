#include "core/json_file.hpp"

#include <fmt/format.h>

#include "core/control_escapes.hpp"
#include "core/text_file.hpp"
#include "core/unique_keys_parser.hpp"

namespace jouleprof {

Error not_json_error(std::string_view origin, std::string_view text,
                     std::string_view parser_error) {
  if (const std::size_t nul = text.find('\0'); nul != std::string_view::npos) {
    return Error(ErrorCode::kInvalidInput,
                 fmt::format("{}: not valid JSON: a NUL byte at byte offset {} (a binary file?)",
                             origin, nul));
  }
  return Error(ErrorCode::kInvalidInput,
               fmt::format("{}: not valid JSON: {}", origin, parser_error));
}

Error repeated_key_error(std::string_view origin, std::string_view object_path,
                         std::string_view key) {
  return Error(ErrorCode::kInvalidInput,
               fmt::format("{}: {}key {} appears twice in one object, and JSON does not say "
                           "which value holds",
                           origin, object_path.empty() ? "" : fmt::format("{}: ", object_path),
                           quoted_excerpt(key)));
}

Result<nlohmann::json> parse_json(std::string_view text, std::string_view origin) {
  nlohmann::json document;
  try {
    UniqueKeysParser parser(document);
    nlohmann::json::sax_parse(text, &parser);
    if (parser.repeated_key()) return repeated_key_error(origin, "", *parser.repeated_key());
  } catch (const nlohmann::json::exception& e) {
    return not_json_error(origin, text, e.what());
  }
  return document;
}

Result<nlohmann::json> read_json_file(const std::string& path, std::string_view what) {
  JP_TRY(const std::string text, read_text_file(path, what, kMaxJsonFileBytes));
  return parse_json(text, path);
}

}  // namespace jouleprof
