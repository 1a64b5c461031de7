#include "jouleprof/epoch_file.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <fstream>

#include "core/line_reader.hpp"
#include "core/parse.hpp"

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
  Result<LineReader> opened = LineReader::open(path, "epoch file");
  // No file yet: no epoch has begun or ended.
  if (!opened && opened.error().code() == ErrorCode::kNotFound) return boundaries;
  JP_TRY(LineReader lines, std::move(opened));
  JP_RETURN_IF_ERROR(for_each_line(lines, [&](const TextLine& text_line) -> Status {
    // The writer appends whole lines: one without its break is still being written.
    if (!text_line.terminated) return Status::Ok();
    std::string_view line = text_line.text;
    EpochBoundary b;
    if (line.starts_with(kBegin)) {
      b.kind = EpochBoundary::Kind::kBegin;
      line.remove_prefix(kBegin.size());
    } else if (line.starts_with(kEnd)) {
      line.remove_prefix(kEnd.size());
    }
    const std::optional<TimeNs> t_ns = to_integer<TimeNs>(line);
    if (!t_ns || *t_ns <= 0) {
      return invalid_input(fmt::format("{}:{}", path, text_line.number), "t_ns", line,
                           "not a positive integer time after 'begin ' or 'end '");
    }
    b.t_ns = *t_ns;
    boundaries.push_back(b);
    return Status::Ok();
  }));
  return boundaries;
}

}  // namespace jouleprof
