#include "timeline/trace_file.hpp"

#include <fmt/format.h>
#include <simdjson.h>
#include <sys/stat.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <new>

namespace jouleprof::timeline {
namespace {

static_assert(TraceText::kPadding >= simdjson::SIMDJSON_PADDING, "simdjson needs more padding");

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};

Error open_error(const std::string& path, int err) {
  return Error(err == ENOENT   ? ErrorCode::kNotFound
               : err == EACCES ? ErrorCode::kPermissionDenied
                               : ErrorCode::kIo,
               fmt::format("{}: cannot open: {}", path, std::strerror(err)));
}

Error directory_error(const std::string& path) {
  return Error(ErrorCode::kInvalidInput, fmt::format("{}: is a directory, not a trace", path));
}

Error read_error(const std::string& path) {
  return Error(ErrorCode::kIo,
               fmt::format("{}: reading the trace failed: {}", path, std::strerror(errno)));
}

Error truncated_gzip_error(const std::string& path, std::size_t produced) {
  return Error(ErrorCode::kInvalidInput,
               fmt::format("{}: the gzip stream is truncated (it ends after {} bytes of text)",
                           path, produced));
}

Error gzip_error(const std::string& path, const z_stream& stream, int status) {
  const std::string why = stream.msg != nullptr ? stream.msg : fmt::format("zlib error {}", status);
  return Error(ErrorCode::kInvalidInput, fmt::format("{}: not valid gzip data: {}", path, why));
}

}  // namespace

TraceText::TraceText(std::string text) : bytes_(std::move(text)), size_(bytes_.size()) {
  bytes_.resize(size_ + kPadding, '\0');
}

Result<TraceText> read_trace_file(const std::string& path) {
  try {
    JP_TRY(std::unique_ptr<TraceStream> stream, TraceStream::open(path));
    // A gzip trailer's size is not trusted (any file can claim anything): the text grows by
    // doubling from the file's size, the exact size of a plain file.
    std::string text(stream->file_bytes() + TraceText::kPadding + 1, '\0');
    std::size_t size = 0;
    for (;;) {
      if (text.size() - size <= TraceText::kPadding) text.resize(2 * text.size());
      JP_TRY(const std::size_t got,
             stream->read(text.data() + size, text.size() - size - TraceText::kPadding));
      if (got == 0) break;
      size += got;
    }
    text.resize(size);
    return TraceText(std::move(text));
  } catch (const std::bad_alloc&) {
    // A real trace this large, or a gzip bomb: either way not one that fits here.
    return Error(ErrorCode::kIo,
                 fmt::format("{}: the trace (or what it decompresses to) is too large to hold in "
                             "memory",
                             path));
  }
}

Result<std::size_t> MemoryText::read(char* out, std::size_t max) {
  const std::size_t n = std::min(max, rest_.size());
  std::memcpy(out, rest_.data(), n);
  rest_.remove_prefix(n);
  return n;
}

namespace {
constexpr std::size_t kCompressedChunk = std::size_t{1} << 20;
}  // namespace

Result<std::unique_ptr<TraceStream>> TraceStream::open(const std::string& path) {
  std::unique_ptr<TraceStream> stream(new TraceStream);
  stream->path_ = path;
  stream->file_.reset(std::fopen(path.c_str(), "rb"));
  if (!stream->file_) return open_error(path, errno);
  struct stat info {};
  if (fstat(fileno(stream->file_.get()), &info) == 0) {
    if (S_ISDIR(info.st_mode)) return directory_error(path);
    if (S_ISREG(info.st_mode) && info.st_size > 0)
      stream->file_bytes_ = static_cast<std::size_t>(info.st_size);
  }
  stream->input_.resize(kCompressedChunk);
  JP_RETURN_IF_ERROR(stream->fill_input());
  const std::size_t have = stream->input_end_ - stream->input_begin_;
  if (have >= 2 && stream->input_[0] == 0x1f && stream->input_[1] == 0x8b) {
    stream->zlib_ = std::make_unique<z_stream>();
    // 15 window bits + 16: gzip wrapper only.
    if (inflateInit2(stream->zlib_.get(), 15 + 16) != Z_OK) {
      return Error(ErrorCode::kInternal, fmt::format("{}: zlib could not start", path));
    }
    stream->zlib_started_ = true;
  }
  return stream;
}

TraceStream::~TraceStream() {
  if (zlib_started_) inflateEnd(zlib_.get());
}

// Refills the input buffer when it is empty (file_ended_ once the file has no more).
Status TraceStream::fill_input() {
  if (input_begin_ < input_end_ || file_ended_) return Status::Ok();
  const std::size_t got = std::fread(input_.data(), 1, input_.size(), file_.get());
  if (got < input_.size()) {
    if (std::ferror(file_.get())) return read_error(path_);
    file_ended_ = true;
  }
  input_begin_ = 0;
  input_end_ = got;
  return Status::Ok();
}

Result<std::size_t> TraceStream::read(char* out, std::size_t max) {
  if (zlib_) return inflate_into(out, max);
  // What open() read to look for the gzip magic first, then straight from the file.
  std::size_t n = std::min(max, input_end_ - input_begin_);
  std::memcpy(out, input_.data() + input_begin_, n);
  input_begin_ += n;
  while (n < max && !file_ended_) {
    const std::size_t got = std::fread(out + n, 1, max - n, file_.get());
    if (got < max - n) {
      if (std::ferror(file_.get())) return read_error(path_);
      file_ended_ = true;
    }
    n += got;
  }
  text_bytes_ += n;
  return n;
}

Result<std::size_t> TraceStream::inflate_into(char* out, std::size_t max) {
  z_stream& z = *zlib_;
  std::size_t n = 0;
  while (n < max) {
    JP_RETURN_IF_ERROR(fill_input());
    if (input_begin_ == input_end_) {
      // All input used: the end of a member is the end of the text, anything else is cut short.
      if (member_ended_) break;
      return truncated_gzip_error(path_, text_bytes_ + n);
    }
    if (member_ended_) {
      inflateReset(&z);  // another member follows
      member_ended_ = false;
    }
    z.next_in = input_.data() + input_begin_;
    z.avail_in = static_cast<uInt>(input_end_ - input_begin_);
    z.next_out = reinterpret_cast<Bytef*>(out + n);
    z.avail_out = static_cast<uInt>(std::min<std::size_t>(max - n, 1U << 30));
    const uInt in_before = z.avail_in;
    const uInt out_before = z.avail_out;
    const int status = inflate(&z, Z_NO_FLUSH);
    input_begin_ += in_before - z.avail_in;
    n += out_before - z.avail_out;
    if (status == Z_STREAM_END) {
      member_ended_ = true;
      continue;
    }
    if (status != Z_OK && status != Z_BUF_ERROR) return gzip_error(path_, z, status);
  }
  text_bytes_ += n;
  return n;
}

}  // namespace jouleprof::timeline
