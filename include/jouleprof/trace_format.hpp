// TraceFormat: the kinds of trace import_trace() reads (trace_import.hpp). Recorded in profiles by
// name (meta.options "trace.format").
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace jouleprof {

// Fixed values.
enum class TraceFormat : std::uint8_t {
  kKineto = 0,
  kTensorFlow = 1,
  kChrome = 2,
  kSpanDump = 3,
  kTorchLegacy = 4,
};
std::string_view to_string(TraceFormat format);
std::optional<TraceFormat> trace_format_from_string(std::string_view name);

}  // namespace jouleprof
