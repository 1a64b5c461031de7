#include "core/line_reader.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>

namespace jouleprof {
namespace {

// Large enough that a read costs little per byte, small enough that a file bad from its first
// line fails after one read.
constexpr std::size_t kChunkBytes = std::size_t{64} << 10;

}  // namespace

Result<LineReader> LineReader::open(const std::string& path, std::string_view what) {
  JP_TRY(InputFile input, open_input_file(path, what));
  return LineReader(path, std::string(what), std::move(input.file), {});
}

LineReader LineReader::over_text(std::string_view text, std::string origin) {
  return LineReader(std::move(origin), "text", nullptr, text);
}

Result<std::optional<TextLine>> LineReader::next() {
  while (!ended_) {
    std::string_view buffered = text();
    const std::size_t newline = buffered.find('\n', scanned_);
    const bool terminated = newline != std::string_view::npos;
    scanned_ = terminated ? newline : buffered.size();
    const bool carriage_return = scanned_ > begin_ && buffered[scanned_ - 1] == '\r';
    if (scanned_ - begin_ - (carriage_return ? 1 : 0) > kMaxLineBytes) {
      ended_ = true;
      return too_long();
    }
    if (!terminated && file_) {
      JP_TRY(const bool more, read_chunk());
      if (more) continue;
      buffered = text();  // what read_chunk kept, at its new place
    }
    if (!terminated) {
      ended_ = true;
      if (begin_ == buffered.size()) break;
    }
    std::string_view line = buffered.substr(begin_, scanned_ - begin_);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    const TextLine given{++number_, offset_ + begin_, line, terminated};
    begin_ = scanned_ = terminated ? newline + 1 : buffered.size();
    return std::optional<TextLine>(given);
  }
  return std::optional<TextLine>();
}

Result<bool> LineReader::nothing_follows(bool (*has_content)(std::string_view line)) {
  while (true) {
    JP_TRY(const std::optional<TextLine> line, next());
    if (!line) return true;
    if (has_content(line->text)) return false;
  }
}

Result<bool> LineReader::read_chunk() {
  // Only the current line is kept: what came before it moves out once, so reading is linear
  // however the lines fall across chunks.
  buffer_.erase(0, begin_);
  offset_ += begin_;
  scanned_ -= begin_;
  begin_ = 0;
  const std::size_t kept = buffer_.size();
  buffer_.resize(kept + kChunkBytes);
  const std::size_t got = std::fread(buffer_.data() + kept, 1, kChunkBytes, file_.get());
  buffer_.resize(kept + got);
  if (got > 0) return true;
  if (std::ferror(file_.get())) {
    const int err = errno;
    ended_ = true;
    return Error(ErrorCode::kIo, fmt::format("{}: reading the {} failed after byte {}: {}", origin_,
                                             what_, offset_ + kept, std::strerror(err)));
  }
  return false;
}

Error LineReader::too_long() const {
  return invalid_input(
      origin_, fmt::format("line {}", number_ + 1), text().substr(begin_, kMaxLineBytes),
      fmt::format("goes on past {} bytes (1 MiB), the longest line jouleprof reads (line {} starts "
                  "at byte {})",
                  kMaxLineBytes, number_ + 1, offset_ + begin_));
}

Status for_each_line(LineReader& lines, const std::function<Status(const TextLine&)>& visit) {
  while (true) {
    JP_TRY(const std::optional<TextLine> line, lines.next());
    if (!line) return Status::Ok();
    if (Status visited = visit(*line); !visited) {
      const Error& error = visited.error();
      return Error(error.code(),
                   fmt::format("{} (line {} starts at byte {})", error.message(), line->number,
                               line->offset),
                   error.subject());
    }
  }
}

}  // namespace jouleprof
