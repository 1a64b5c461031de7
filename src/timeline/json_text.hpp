// Small helpers for writing JSON text fast (span dumps write millions of numbers).
#pragma once

#include <string>
#include <string_view>

namespace jouleprof::timeline {

// Appends `text` as a JSON string literal. Bytes that are not valid UTF-8 become U+FFFD, so that
// every strict reader (simdjson validates UTF-8) can read the result back.
void append_json_string(std::string& out, std::string_view text);

}  // namespace jouleprof::timeline
