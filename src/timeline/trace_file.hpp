// Reading trace files: plain or gzip-compressed (PyTorch profiler traces are often .json.gz),
// into a buffer with the zero padding simdjson may read past the end of the text.
#pragma once

#include <string>
#include <string_view>

#include "jouleprof/result.hpp"

namespace jouleprof::timeline {

class TraceText {
 public:
  // Padding simdjson reads past the end (SIMDJSON_PADDING, checked in trace_file.cpp).
  static constexpr std::size_t kPadding = 64;

  TraceText() = default;
  // Takes the text and pads it (without copying when its capacity already has room).
  explicit TraceText(std::string text);

  std::string_view view() const { return std::string_view(bytes_.data(), size_); }
  const char* data() const { return bytes_.data(); }
  std::size_t size() const { return size_; }
  std::size_t capacity() const { return bytes_.size(); }  // size() + kPadding

 private:
  std::string bytes_;  // the text followed by kPadding zero bytes
  std::size_t size_ = 0;
};

// Reads `path`, gunzipping it when it starts with the gzip magic bytes (any name). Errors name the
// path and say whether opening, reading or decompressing failed.
Result<TraceText> read_trace_file(const std::string& path);

}  // namespace jouleprof::timeline
