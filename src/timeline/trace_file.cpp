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

// Reads the whole file into `bytes`, leaving TraceText::kPadding spare bytes of capacity at the
// end so that wrapping it in a TraceText never copies it.
Status read_all(const std::string& path, std::string& bytes) {
  std::unique_ptr<std::FILE, FileCloser> file(std::fopen(path.c_str(), "rb"));
  if (!file) {
    const int err = errno;
    return Error(err == ENOENT   ? ErrorCode::kNotFound
                 : err == EACCES ? ErrorCode::kPermissionDenied
                                 : ErrorCode::kIo,
                 fmt::format("{}: cannot open: {}", path, std::strerror(err)));
  }
  struct stat info {};
  const bool known = fstat(fileno(file.get()), &info) == 0;
  if (known && S_ISDIR(info.st_mode)) {
    return Error(ErrorCode::kInvalidInput, fmt::format("{}: is a directory, not a trace", path));
  }
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
  if (std::ferror(file.get())) {
    return Error(ErrorCode::kIo,
                 fmt::format("{}: reading the trace failed: {}", path, std::strerror(errno)));
  }
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
        return Error(
            ErrorCode::kInvalidInput,
            fmt::format("{}: the gzip stream is truncated (it ends after {} bytes of text)", path,
                        produced));
      }
      continue;
    }
    const std::string why =
        stream.msg != nullptr ? stream.msg : fmt::format("zlib error {}", status);
    inflateEnd(&stream);
    return Error(ErrorCode::kInvalidInput, fmt::format("{}: not valid gzip data: {}", path, why));
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

}  // namespace jouleprof::timeline
