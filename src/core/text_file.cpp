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

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};

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

}  // namespace

Result<std::string> read_text_file(const std::string& path, std::string_view what) {
  std::unique_ptr<std::FILE, FileCloser> file(std::fopen(path.c_str(), "rb"));
  if (!file) {
    const int err = errno;
    return Error(code_of(err),
                 fmt::format("{}: cannot open the {}: {}", path, what, std::strerror(err)));
  }
  struct stat info {};
  if (fstat(fileno(file.get()), &info) == 0 && S_ISDIR(info.st_mode)) {
    return Error(ErrorCode::kInvalidInput, fmt::format("{}: is a directory, not a {}", path, what));
  }
  std::string text;
  try {
    if (S_ISREG(info.st_mode) && info.st_size > 0)
      text.reserve(static_cast<std::size_t>(info.st_size));
    char buffer[1 << 16];
    std::size_t got = 0;
    while ((got = std::fread(buffer, 1, sizeof buffer, file.get())) > 0) text.append(buffer, got);
  } catch (const std::bad_alloc&) {
    return Error(ErrorCode::kIo,
                 fmt::format("{}: the {} is too large to read into memory ({} bytes)", path, what,
                             static_cast<long long>(info.st_size)));
  }
  if (std::ferror(file.get())) {
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
