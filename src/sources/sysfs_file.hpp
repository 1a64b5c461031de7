// Small readers for sysfs, procfs and /dev files under a redirectable root, shared by the
// hardware backends. Every error names the file and says what was wrong with it.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "jouleprof/result.hpp"

namespace jouleprof::sysfs {

// <root>/<absolute_path>: "/" + "/sys/class/powercap" -> "/sys/class/powercap".
std::filesystem::path under_root(std::string_view root, std::string_view absolute_path);

// An Error for a failed system call on `path`, with the code that matches errno (ENOENT ->
// kNotFound, EACCES/EPERM -> kPermissionDenied, anything else -> kIo).
Error errno_error(const std::filesystem::path& path, std::string_view action, int error_number);

// The whole file with trailing whitespace removed.
Result<std::string> read_text(const std::filesystem::path& path);

// A decimal integer that fills `text` (leading/trailing whitespace allowed). `field` names what
// the number is (e.g. "energy_uj") for the error message.
Result<std::uint64_t> parse_unsigned(const std::filesystem::path& path, std::string_view field,
                                     std::string_view text);
Result<std::int64_t> parse_signed(const std::filesystem::path& path, std::string_view field,
                                  std::string_view text);
// Decimal or 0x-prefixed hexadecimal (perf event strings use "event=0x02").
Result<std::uint64_t> parse_unsigned_any_base(const std::filesystem::path& path,
                                              std::string_view field, std::string_view text);

Result<std::uint64_t> read_unsigned(const std::filesystem::path& path);
Result<std::int64_t> read_signed(const std::filesystem::path& path);

// Names of the entries of a directory, sorted with numeric suffixes in numeric order
// ("hwmon2" before "hwmon10"). A missing directory is kNotFound.
Result<std::vector<std::string>> list_directory(const std::filesystem::path& path);

// Orders names so that embedded numbers compare as numbers: "cpu2" < "cpu10",
// "intel-rapl:0:1" < "intel-rapl:0:10".
bool natural_less(std::string_view a, std::string_view b);

// A file that is opened once and re-read from offset 0 on every read, as sysfs counters are meant
// to be read: one pread per sample, no open/close. Reads also notice a file that has been removed
// since it was opened (sysfs reports ENODEV; a regular file keeps its data but loses its links).
class OpenFile {
 public:
  OpenFile() = default;
  ~OpenFile();
  OpenFile(OpenFile&& other) noexcept;
  OpenFile& operator=(OpenFile&& other) noexcept;
  OpenFile(const OpenFile&) = delete;
  OpenFile& operator=(const OpenFile&) = delete;

  static Result<OpenFile> open(const std::filesystem::path& path);

  const std::filesystem::path& path() const { return path_; }
  // The content from offset 0 (up to 63 bytes: enough for any sysfs number).
  Result<std::string_view> read_text();
  Result<std::uint64_t> read_unsigned(std::string_view field);
  Result<std::int64_t> read_signed(std::string_view field);
  // `size` bytes at `offset` (an MSR register read). Errors name the offset in hex.
  Status read_at(std::uint64_t offset, void* data, std::size_t size);

 private:
  OpenFile(std::filesystem::path path, int fd) : path_(std::move(path)), fd_(fd) {}
  Status check_still_linked();

  std::filesystem::path path_;
  int fd_ = -1;
  char buffer_[64] = {};
};

}  // namespace jouleprof::sysfs
