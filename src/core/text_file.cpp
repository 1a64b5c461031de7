#include "core/text_file.hpp"

#include <fmt/format.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <new>

namespace jouleprof {
namespace {

ErrorCode code_of(int err) {
  switch (err) {
    case ENOENT:
    case ENOTDIR:
      return ErrorCode::kNotFound;
    case EACCES:
    case EPERM:
      return ErrorCode::kPermissionDenied;
    default:
      return ErrorCode::kIo;
  }
}

constexpr std::uint64_t kMiB = std::uint64_t{1} << 20;

Error too_large(const std::string& path, std::string_view what, std::string_view size,
                std::uint64_t max_bytes) {
  return Error(
      ErrorCode::kInvalidInput,
      fmt::format("{}: the {} holds {} bytes: a {} may hold at most {} bytes{}, since it "
                  "is read whole and its parsed form takes several times that",
                  path, what, size, what, max_bytes,
                  max_bytes % kMiB == 0 ? fmt::format(" ({} MiB)", max_bytes / kMiB) : ""));
}

}  // namespace

Result<InputFile> open_input_file(const std::string& path, std::string_view what) {
  InputFile input;
  input.file.reset(std::fopen(path.c_str(), "rb"));
  if (!input.file) {
    const int err = errno;
    return Error(code_of(err),
                 fmt::format("{}: cannot open the {}: {}", path, what, std::strerror(err)));
  }
  struct stat info {};
  if (fstat(fileno(input.file.get()), &info) == 0) {
    if (S_ISDIR(info.st_mode)) {
      return Error(ErrorCode::kInvalidInput,
                   fmt::format("{}: is a directory, not a {}", path, what));
    }
    if (S_ISREG(info.st_mode)) input.size = static_cast<std::uint64_t>(info.st_size);
  }
  return input;
}

Result<std::string> read_text_file(const std::string& path, std::string_view what,
                                   std::uint64_t max_bytes) {
  JP_TRY(const InputFile input, open_input_file(path, what));
  if (input.size && *input.size > max_bytes)
    return too_large(path, what, std::to_string(*input.size), max_bytes);
  std::string text;
  try {
    if (input.size) text.reserve(static_cast<std::size_t>(*input.size));
    char buffer[1 << 16];
    std::size_t got = 0;
    while ((got = std::fread(buffer, 1, sizeof buffer, input.file.get())) > 0) {
      if (text.size() + got > max_bytes) {
        return too_large(path, what, fmt::format("more than {}", max_bytes), max_bytes);
      }
      text.append(buffer, got);
    }
  } catch (const std::bad_alloc&) {
    return Error(ErrorCode::kIo,
                 fmt::format("{}: the {} is too large to read into memory", path, what));
  }
  if (std::ferror(input.file.get())) {
    const int err = errno;
    return Error(ErrorCode::kIo,
                 fmt::format("{}: reading the {} failed: {}", path, what, std::strerror(err)));
  }
  return text;
}

Error cannot_open_for_writing(const std::string& path, int err) {
  return Error(code_of(err),
               fmt::format("{}: cannot open for writing: {}", path, std::strerror(err)));
}

Status write_text_file(const std::string& path, std::string_view text) {
  std::unique_ptr<std::FILE, FileCloser> file(std::fopen(path.c_str(), "wb"));
  if (!file) return cannot_open_for_writing(path, errno);
  const bool written = std::fwrite(text.data(), 1, text.size(), file.get()) == text.size();
  const int write_err = errno;
  const bool closed = std::fclose(file.release()) == 0;  // it flushes: a full disk may show here
  if (!written || !closed) {
    return Error(ErrorCode::kIo, fmt::format("{}: write failed: {}", path,
                                             std::strerror(!written ? write_err : errno)));
  }
  return Status::Ok();
}

}  // namespace jouleprof
