// Reading trace files: plain or gzip-compressed (PyTorch profiler traces are often .json.gz),
// either in chunks (TraceStream: what the importer reads, so that a trace of any size needs only
// a chunk of memory) or whole into a buffer with the zero padding simdjson may read past the end
// of the text (span dumps, which jouleprof writes itself).
#pragma once

#include <cstdio>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "jouleprof/result.hpp"

struct z_stream_s;

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

// A source of text read in pieces.
class TextSource {
 public:
  virtual ~TextSource() = default;
  // Up to `max` bytes into `out`; 0 once the text has ended.
  virtual Result<std::size_t> read(char* out, std::size_t max) = 0;
};

// Text already in memory.
class MemoryText : public TextSource {
 public:
  explicit MemoryText(std::string_view text) : rest_(text) {}
  Result<std::size_t> read(char* out, std::size_t max) override;

 private:
  std::string_view rest_;
};

// A trace file read in chunks, gunzipped as it is read when it starts with the gzip magic bytes
// (concatenated gzip members included). Errors name the path, as read_trace_file's do.
class TraceStream : public TextSource {
 public:
  static Result<std::unique_ptr<TraceStream>> open(const std::string& path);
  ~TraceStream() override;
  TraceStream(const TraceStream&) = delete;
  TraceStream& operator=(const TraceStream&) = delete;

  Result<std::size_t> read(char* out, std::size_t max) override;
  // The file's size where it is a regular file (compressed size for gzip), else 0.
  std::size_t file_bytes() const { return file_bytes_; }

 private:
  TraceStream() = default;
  Result<std::size_t> inflate_into(char* out, std::size_t max);
  Status fill_input();

  struct FileCloser {
    void operator()(std::FILE* f) const { std::fclose(f); }
  };
  std::string path_;
  std::unique_ptr<std::FILE, FileCloser> file_;
  std::size_t file_bytes_ = 0;
  std::unique_ptr<z_stream_s> zlib_;  // set for gzip input
  bool zlib_started_ = false;
  bool member_ended_ = false;  // the last inflate() ended a gzip member
  std::vector<unsigned char> input_;
  std::size_t input_begin_ = 0;
  std::size_t input_end_ = 0;
  bool file_ended_ = false;
  std::size_t text_bytes_ = 0;  // produced so far
};

}  // namespace jouleprof::timeline
