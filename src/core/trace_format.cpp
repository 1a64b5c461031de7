#include "jouleprof/trace_format.hpp"

namespace jouleprof {

std::string_view to_string(TraceFormat format) {
  switch (format) {
    case TraceFormat::kKineto:
      return "kineto";
    case TraceFormat::kTensorFlow:
      return "tensorflow";
    case TraceFormat::kChrome:
      return "chrome";
    case TraceFormat::kSpanDump:
      return "jouleprof-spans";
    case TraceFormat::kTorchLegacy:
      return "torch-legacy";
  }
  return "unknown";
}

std::optional<TraceFormat> trace_format_from_string(std::string_view name) {
  for (const TraceFormat format :
       {TraceFormat::kKineto, TraceFormat::kTensorFlow, TraceFormat::kChrome,
        TraceFormat::kSpanDump, TraceFormat::kTorchLegacy}) {
    if (to_string(format) == name) return format;
  }
  return std::nullopt;
}

}  // namespace jouleprof
