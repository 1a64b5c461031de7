#include "jouleprof/result.hpp"

#include <fmt/format.h>

#include "core/control_escapes.hpp"

namespace jouleprof {

std::string_view to_string(ErrorCode code) {
  switch (code) {
    case ErrorCode::kInvalidInput:
      return "invalid input";
    case ErrorCode::kNotFound:
      return "not found";
    case ErrorCode::kPermissionDenied:
      return "permission denied";
    case ErrorCode::kUnavailable:
      return "unavailable";
    case ErrorCode::kIo:
      return "i/o error";
    case ErrorCode::kUnsupported:
      return "unsupported";
    case ErrorCode::kInternal:
      return "internal error";
    case ErrorCode::kInterrupted:
      return "interrupted";
  }
  return "unknown error";
}

Error Error::with_context(std::string_view context) const {
  return Error(code_, fmt::format("{}: {}", context, message_), subject_);
}

namespace {

// Values are quoted up to this many bytes (issue 30, class 3: a 256 MB line of NULs was echoed
// whole to stderr).
constexpr std::size_t kQuotedValueBytes = 80;

// `value` in quotes, escaped (core/control_escapes.hpp); a longer one cut to kQuotedValueBytes,
// before a UTF-8 sequence it would split, with its size: 'abc…' (5000000 bytes).
std::string quoted_value(std::string_view value) {
  if (value.size() <= kQuotedValueBytes) return "'" + escape_control_characters(value) + "'";
  std::size_t cut = kQuotedValueBytes;
  while (cut > 0 && (static_cast<unsigned char>(value[cut]) & 0xC0) == 0x80) --cut;
  return fmt::format("'{}…' ({} bytes)", escape_control_characters(value.substr(0, cut)),
                     value.size());
}

}  // namespace

Error invalid_input(std::string_view file, std::string_view field, std::string_view value,
                    std::string_view problem) {
  return Error(ErrorCode::kInvalidInput, fmt::format("{}: field '{}' has value {}: {}", file, field,
                                                     quoted_value(value), problem));
}

}  // namespace jouleprof
