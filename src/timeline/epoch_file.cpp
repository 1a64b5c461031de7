#include "jouleprof/epoch_file.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <fstream>

#include "core/parse.hpp"
#include "core/text_file.hpp"

namespace jouleprof {
namespace {

constexpr std::string_view kBegin = "begin ";
constexpr std::string_view kEnd = "end ";

}  // namespace

void notify_epoch_file(EpochBoundary::Kind kind, TimeNs t_ns) noexcept {
  static const char* const path = std::getenv(kEpochFileEnv);
  if (path == nullptr || *path == '\0') return;
  const int fd = ::open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return;
  char line[48];
  const auto written = fmt::format_to_n(line, sizeof(line), "{}{}\n",
                                        kind == EpochBoundary::Kind::kBegin ? kBegin : kEnd, t_ns);
  (void)!::write(fd, line, written.size);
  ::close(fd);
}

Result<std::vector<EpochBoundary>> read_epoch_file(const std::string& path) {
  std::vector<EpochBoundary> boundaries;
  Result<std::string> read = read_text_file(path, "epoch file");
  // No file yet: no epoch has begun or ended.
  if (!read && read.error().code() == ErrorCode::kNotFound) return boundaries;
  JP_TRY(const std::string text, std::move(read));
  std::size_t line_no = 0;
  std::size_t begin = 0;
  for (std::size_t end = text.find('\n'); end != std::string::npos; end = text.find('\n', begin)) {
    ++line_no;
    std::string_view line(text.data() + begin, end - begin);
    begin = end + 1;
    EpochBoundary b;
    if (line.starts_with(kBegin)) {
      b.kind = EpochBoundary::Kind::kBegin;
      line.remove_prefix(kBegin.size());
    } else if (line.starts_with(kEnd)) {
      line.remove_prefix(kEnd.size());
    }
    const std::optional<TimeNs> t_ns = to_integer<TimeNs>(line);
    if (!t_ns || *t_ns <= 0) {
      return invalid_input(fmt::format("{}:{}", path, line_no), "t_ns", line,
                           "not a positive integer time after 'begin ' or 'end '");
    }
    b.t_ns = *t_ns;
    boundaries.push_back(b);
  }
  return boundaries;
}

}  // namespace jouleprof
