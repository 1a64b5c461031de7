#include "sources/sysfs_file.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>

#include "core/parse.hpp"

namespace jouleprof::sysfs {
namespace {

template <typename Int>
Result<Int> parse_integer(const std::filesystem::path& path, std::string_view field,
                          std::string_view text, int base, std::string_view expected) {
  const std::string_view value = trim_ascii_space(text);
  if (value.empty())
    return invalid_input(path.string(), field, "", "empty, expected " + std::string(expected));
  if (const std::optional<Int> parsed = to_integer<Int>(value, base)) return *parsed;
  if (looks_like_integer(value, base)) {
    return invalid_input(path.string(), field, value, "out of range for " + std::string(expected));
  }
  return invalid_input(path.string(), field, value, "not " + std::string(expected));
}

}  // namespace

std::filesystem::path under_root(std::string_view root, std::string_view absolute_path) {
  std::filesystem::path result(root.empty() ? std::string_view("/") : root);
  while (!absolute_path.empty() && absolute_path.front() == '/') absolute_path.remove_prefix(1);
  return result / absolute_path;
}

Error errno_error(const std::filesystem::path& path, std::string_view action, int error_number) {
  ErrorCode code = ErrorCode::kIo;
  // ESRCH: a /proc/<pid> file whose process ended while it was being read.
  if (error_number == ENOENT || error_number == ESRCH) code = ErrorCode::kNotFound;
  if (error_number == EACCES || error_number == EPERM) code = ErrorCode::kPermissionDenied;
  if (error_number == ENODEV || error_number == ENXIO) code = ErrorCode::kUnavailable;
  return Error(
      code, fmt::format("{}: cannot {}: {}", path.string(), action, std::strerror(error_number)));
}

Result<std::string> read_text(const std::filesystem::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return errno_error(path, "open", errno);
  std::string content;
  char chunk[4096];
  for (;;) {
    const ssize_t n = ::read(fd, chunk, sizeof chunk);
    if (n < 0) {
      const int error_number = errno;
      ::close(fd);
      return errno_error(path, "read", error_number);
    }
    if (n == 0) break;
    content.append(chunk, static_cast<std::size_t>(n));
  }
  ::close(fd);
  const std::string_view trimmed = trim_ascii_space(content);
  return std::string(trimmed);
}

Result<std::uint64_t> parse_unsigned(const std::filesystem::path& path, std::string_view field,
                                     std::string_view text) {
  if (!trim_ascii_space(text).empty() && trim_ascii_space(text).front() == '-') {
    return invalid_input(path.string(), field, trim_ascii_space(text),
                         "negative, expected a non-negative integer");
  }
  return parse_integer<std::uint64_t>(path, field, text, 10, "a non-negative integer");
}

Result<std::int64_t> parse_signed(const std::filesystem::path& path, std::string_view field,
                                  std::string_view text) {
  return parse_integer<std::int64_t>(path, field, text, 10, "an integer");
}

Result<std::uint64_t> parse_unsigned_any_base(const std::filesystem::path& path,
                                              std::string_view field, std::string_view text) {
  std::string_view value = trim_ascii_space(text);
  if (value.size() > 2 && value[0] == '0' && (value[1] == 'x' || value[1] == 'X')) {
    return parse_integer<std::uint64_t>(path, field, value.substr(2), 16, "a hexadecimal integer");
  }
  return parse_unsigned(path, field, value);
}

Result<std::uint64_t> read_unsigned(const std::filesystem::path& path) {
  JP_TRY(const std::string text, read_text(path));
  return parse_unsigned(path, path.filename().string(), text);
}

Result<std::int64_t> read_signed(const std::filesystem::path& path) {
  JP_TRY(const std::string text, read_text(path));
  return parse_signed(path, path.filename().string(), text);
}

bool natural_less(std::string_view a, std::string_view b) {
  std::size_t i = 0;
  std::size_t j = 0;
  const auto is_digit = [](char c) { return c >= '0' && c <= '9'; };
  while (i < a.size() && j < b.size()) {
    if (is_digit(a[i]) && is_digit(b[j])) {
      std::size_t end_a = i;
      std::size_t end_b = j;
      while (end_a < a.size() && is_digit(a[end_a])) ++end_a;
      while (end_b < b.size() && is_digit(b[end_b])) ++end_b;
      // Compare numerically: strip leading zeros, then longer is larger, then lexically.
      std::string_view digits_a = a.substr(i, end_a - i);
      std::string_view digits_b = b.substr(j, end_b - j);
      while (digits_a.size() > 1 && digits_a.front() == '0') digits_a.remove_prefix(1);
      while (digits_b.size() > 1 && digits_b.front() == '0') digits_b.remove_prefix(1);
      if (digits_a.size() != digits_b.size()) return digits_a.size() < digits_b.size();
      if (digits_a != digits_b) return digits_a < digits_b;
      i = end_a;
      j = end_b;
      continue;
    }
    if (a[i] != b[j]) return a[i] < b[j];
    ++i;
    ++j;
  }
  return a.size() - i < b.size() - j;
}

Result<std::vector<std::string>> list_directory(const std::filesystem::path& path) {
  std::error_code error;
  std::filesystem::directory_iterator it(path, error);
  if (error) return errno_error(path, "list directory", error.value());
  std::vector<std::string> names;
  for (const auto& entry : it) names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end(),
            [](const std::string& a, const std::string& b) { return natural_less(a, b); });
  return names;
}

OpenFile::~OpenFile() {
  if (fd_ >= 0) ::close(fd_);
}

OpenFile::OpenFile(OpenFile&& other) noexcept
    : path_(std::move(other.path_)), fd_(std::exchange(other.fd_, -1)) {}

OpenFile& OpenFile::operator=(OpenFile&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    path_ = std::move(other.path_);
    fd_ = std::exchange(other.fd_, -1);
  }
  return *this;
}

Result<OpenFile> OpenFile::open(const std::filesystem::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return errno_error(path, "open", errno);
  return OpenFile(path, fd);
}

Status OpenFile::check_still_linked() {
  struct stat info {};
  if (::fstat(fd_, &info) != 0) return errno_error(path_, "stat", errno);
  if (info.st_nlink == 0) {
    return Error(ErrorCode::kUnavailable,
                 fmt::format("{}: removed while jouleprof was reading it", path_.string()));
  }
  return Status::Ok();
}

Result<std::string_view> OpenFile::read_text() {
  if (fd_ < 0)
    return Error(ErrorCode::kInternal, fmt::format("{}: read of a closed file", path_.string()));
  const ssize_t n = ::pread(fd_, buffer_, sizeof buffer_ - 1, 0);
  if (n < 0) return errno_error(path_, "read", errno);
  JP_RETURN_IF_ERROR(check_still_linked());
  return std::string_view(buffer_, static_cast<std::size_t>(n));
}

Result<std::uint64_t> OpenFile::read_unsigned(std::string_view field) {
  JP_TRY(const std::string_view text, read_text());
  return parse_unsigned(path_, field, text);
}

Result<std::int64_t> OpenFile::read_signed(std::string_view field) {
  JP_TRY(const std::string_view text, read_text());
  return parse_signed(path_, field, text);
}

Status OpenFile::read_at(std::uint64_t offset, void* data, std::size_t size) {
  if (fd_ < 0)
    return Error(ErrorCode::kInternal, fmt::format("{}: read of a closed file", path_.string()));
  const ssize_t n = ::pread(fd_, data, size, static_cast<off_t>(offset));
  if (n < 0) return errno_error(path_, fmt::format("read register {:#x}", offset), errno);
  if (static_cast<std::size_t>(n) != size) {
    return Error(ErrorCode::kIo, fmt::format("{}: register {:#x}: read {} of {} bytes",
                                             path_.string(), offset, n, size));
  }
  return Status::Ok();
}

}  // namespace jouleprof::sysfs
