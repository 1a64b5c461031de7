#include "core/json_file.hpp"

#include <fmt/format.h>

#include "core/text_file.hpp"

namespace jouleprof {

Result<nlohmann::json> parse_json(std::string_view text, std::string_view origin) {
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    return Error(ErrorCode::kInvalidInput, fmt::format("{}: not valid JSON: {}", origin, e.what()));
  }
}

Result<nlohmann::json> read_json_file(const std::string& path, std::string_view what) {
  JP_TRY(const std::string text, read_text_file(path, what));
  return parse_json(text, path);
}

}  // namespace jouleprof
