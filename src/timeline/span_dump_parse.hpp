// Parsing a span dump from text already in memory (the trace importer detects dumps by content).
#pragma once

#include <string_view>

#include "jouleprof/span_dump.hpp"
#include "timeline/trace_file.hpp"

namespace jouleprof::timeline {

Result<SpanDump> parse_span_dump(const TraceText& text, std::string_view origin);

}  // namespace jouleprof::timeline
