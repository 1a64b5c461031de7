#include "core/json_file.hpp"

#include <fmt/format.h>

#include "core/text_file.hpp"

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

Result<nlohmann::json> parse_json(std::string_view text, std::string_view origin) {
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    return not_json_error(origin, text, e.what());
  }
}

Result<nlohmann::json> read_json_file(const std::string& path, std::string_view what) {
  JP_TRY(const std::string text, read_text_file(path, what, kMaxJsonFileBytes));
  return parse_json(text, path);
}

}  // namespace jouleprof
