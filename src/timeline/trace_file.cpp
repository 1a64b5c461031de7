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

// Reads the whole file into `bytes`, leaving TraceText::kPadding spare bytes of capacity at the
// end so that wrapping it in a TraceText never copies it.
Status read_all(const std::string& path, std::string& bytes) {
  std::unique_ptr<std::FILE, FileCloser> file(std::fopen(path.c_str(), "rb"));
  if (!file) return open_error(path, errno);
  struct stat info {};
  const bool known = fstat(fileno(file.get()), &info) == 0;
  if (known && S_ISDIR(info.st_mode)) return directory_error(path);
  const std::size_t expected = known && S_ISREG(info.st_mode) && info.st_size > 0
                                   ? static_cast<std::size_t>(info.st_size)
                                   : 0;
  bytes.resize(expected + TraceText::kPadding);
  std::size_t size = 0;
  for (;;) {
    if (bytes.size() - size < TraceText::kPadding + 1) bytes.resize(bytes.size() * 2 + (1 << 16));
    const std::size_t room = bytes.size() - size - TraceText::kPadding;
    const std::size_t got = std::fread(bytes.data() + size, 1, room, file.get());
    size += got;
    if (got < room) break;
  }
  if (std::ferror(file.get())) return read_error(path);
  bytes.resize(size);
  return Status::Ok();
}

bool is_gzip(const std::string& bytes) {
  return bytes.size() >= 2 && bytes.compare(0, 2, "\x1f\x8b") == 0;
}

// Inflates every gzip member in `compressed` (concatenated members are valid gzip).
Result<std::string> gunzip(const std::string& compressed, const std::string& path) {
  z_stream stream{};
  // 15 window bits + 16: gzip wrapper only.
  if (inflateInit2(&stream, 15 + 16) != Z_OK) {
    return Error(ErrorCode::kInternal, fmt::format("{}: zlib could not start", path));
  }
  // The gzip trailer holds the text's size modulo 2^32: exact for one honest member under 4 GiB,
  // but any file can claim anything, so it is believed only up to what deflate can expand the
  // input to (1032:1); the buffer grows by doubling past that. Room for the padding is kept so
  // that TraceText need not copy.
  constexpr std::size_t kMaxDeflateRatio = 1032;
  const auto trailer = [&](std::size_t k) {
    return static_cast<std::size_t>(
        static_cast<unsigned char>(compressed[compressed.size() - 4 + k]));
  };
  const std::size_t claimed =
      compressed.size() >= 18 ? trailer(0) | trailer(1) << 8 | trailer(2) << 16 | trailer(3) << 24
                              : 0;
  const std::size_t size_hint = std::min(claimed, compressed.size() * kMaxDeflateRatio);
  std::string out;
  out.resize(std::max(size_hint, compressed.size()) + TraceText::kPadding + 1);
  std::size_t produced = 0;
  std::size_t consumed = 0;
  while (true) {
    if (produced == out.size()) out.resize(out.size() * 2);
    const std::size_t in_left = compressed.size() - consumed;
    const std::size_t out_left = out.size() - produced;
    stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(compressed.data() + consumed));
    stream.avail_in = static_cast<uInt>(std::min<std::size_t>(in_left, 1U << 30));
    stream.next_out = reinterpret_cast<Bytef*>(out.data() + produced);
    stream.avail_out = static_cast<uInt>(std::min<std::size_t>(out_left, 1U << 30));
    const uInt in_before = stream.avail_in;
    const uInt out_before = stream.avail_out;
    const int status = inflate(&stream, Z_NO_FLUSH);
    consumed += in_before - stream.avail_in;
    produced += out_before - stream.avail_out;
    if (status == Z_STREAM_END) {
      if (consumed == compressed.size()) break;
      inflateReset(&stream);  // another member follows
      continue;
    }
    if (status == Z_OK || status == Z_BUF_ERROR) {
      // No end of stream although all input is used and output room is left: cut short.
      if (consumed == compressed.size() && produced < out.size()) {
        inflateEnd(&stream);
        return truncated_gzip_error(path, produced);
      }
      continue;
    }
    Error error = gzip_error(path, stream, status);
    inflateEnd(&stream);
    return error;
  }
  inflateEnd(&stream);
  out.resize(produced);
  return out;
}

}  // namespace

TraceText::TraceText(std::string text) : bytes_(std::move(text)), size_(bytes_.size()) {
  bytes_.resize(size_ + kPadding, '\0');
}

Result<TraceText> read_trace_file(const std::string& path) {
  try {
    std::string bytes;
    JP_RETURN_IF_ERROR(read_all(path, bytes));
    if (is_gzip(bytes)) {
      JP_TRY(std::string text, gunzip(bytes, path));
      return TraceText(std::move(text));
    }
    return TraceText(std::move(bytes));
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
  if (fstat(fileno(stream->file_.get()), &info) == 0 && S_ISDIR(info.st_mode))
    return directory_error(path);
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
