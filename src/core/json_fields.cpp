#include "core/json_fields.hpp"

#include <fmt/format.h>

namespace jouleprof {
namespace {

template <typename Json>
std::string number_text(const Json& v) {
  if (v.is_number_unsigned()) return std::to_string(v.template get<std::uint64_t>());
  if (v.is_number_integer()) return std::to_string(v.template get<std::int64_t>());
  return fmt::format("{}", v.template get<double>());
}

}  // namespace

Error json_field_error(std::string_view origin, std::string_view field, std::string_view problem) {
  return Error(ErrorCode::kInvalidInput, fmt::format("{}: field '{}' {}", origin, field, problem));
}

std::string json_number_text(const nlohmann::json& v) { return number_text(v); }

}  // namespace jouleprof
