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

Error invalid_input(std::string_view file, std::string_view field, std::string_view value,
                    std::string_view problem) {
  return Error(ErrorCode::kInvalidInput, fmt::format("{}: field '{}' has value {}: {}", file, field,
                                                     quoted_excerpt(value), problem));
}

}  // namespace jouleprof
