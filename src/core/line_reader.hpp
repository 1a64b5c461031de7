// Line-oriented input (samples.csv, power logs, meter CSVs, training logs, reference tables) read
// one line at a time, so that memory is bounded by what a reader keeps, not by the file: a 1 GB
// file of garbage fails at its first bad line after reading at most one chunk and one line
// (issue 30, class 3). Lines carry their 1-based number and the byte offset where they start, so
// an error can point into a file too large to open in an editor.
//
//   JP_TRY(LineReader lines, LineReader::open(path, "samples file"));
//   JP_RETURN_IF_ERROR(for_each_line(lines, [&](const TextLine& line) -> Status { ... }));
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "core/text_file.hpp"
#include "jouleprof/result.hpp"

namespace jouleprof {

struct TextLine {
  std::size_t number = 0;    // 1-based
  std::uint64_t offset = 0;  // of the line's first byte in the file
  std::string_view text;     // without the line break (and a trailing '\r')
  bool terminated = true;    // false only for a final line without '\n'
};

// The longest line any reader takes, its break not counted. The longest lines of the formats read
// this way are CSV rows of a few hundred bytes (a kernel table with every feature, an nvidia-smi
// row with every query field); 1 MiB is thousands of times that, and what one line may cost in
// memory. A longer line is an error naming where it starts, not a reason to read on.
inline constexpr std::size_t kMaxLineBytes = std::size_t{1} << 20;

class LineReader {
 public:
  // The file at `path`, read in chunks. Opening fails as read_text_file does (`what` names the
  // kind of file: "cannot open the samples file: …", "is a directory, not a samples file").
  static Result<LineReader> open(const std::string& path, std::string_view what);
  // `text` already in memory (the parse_* entry points, fuzzers), which must outlive the reader;
  // `origin` names it in errors.
  static LineReader over_text(std::string_view text, std::string origin);

  // The next line, std::nullopt after the last. Its text stays valid until the next call. An error
  // when the line is longer than kMaxLineBytes or the file cannot be read on; later calls then
  // return std::nullopt.
  Result<std::optional<TextLine>> next();

  // Whether no line after the last one given holds content as `has_content` tells it: the test of
  // a log's last line, which a logger killed mid-write may have cut. Reads on to the next line
  // with content, so the last line's text is no longer valid after the call.
  Result<bool> nothing_follows(bool (*has_content)(std::string_view line));

  const std::string& origin() const { return origin_; }

 private:
  LineReader(std::string origin, std::string what, std::unique_ptr<std::FILE, FileCloser> file,
             std::string_view text)
      : origin_(std::move(origin)), what_(std::move(what)), file_(std::move(file)), memory_(text) {}

  // What is read: over a file, the buffer, looked up each time rather than kept as a view, which
  // a move of the reader (a short buffer lives inside the string) would leave dangling.
  std::string_view text() const { return file_ ? std::string_view(buffer_) : memory_; }
  // Reads the next chunk after what is buffered; false at the end of the file.
  Result<bool> read_chunk();
  Error too_long() const;

  std::string origin_;
  std::string what_;
  std::unique_ptr<std::FILE, FileCloser> file_;  // null over text in memory
  std::string buffer_;                           // a file's bytes from the current line on
  std::string_view memory_;                      // the text given to over_text
  std::size_t begin_ = 0;                        // where the next line starts in text()
  std::size_t scanned_ = 0;                      // text() up to here holds no '\n' after begin_
  std::uint64_t offset_ = 0;                     // of text()[0] in the input
  std::size_t number_ = 0;                       // of the last line given
  bool ended_ = false;
};

// Gives `visit` each line in turn and stops at the first error, `visit`'s or the reader's. An
// error of `visit` gains where its line starts: "…: not a number (line 7 starts at byte 1234)".
Status for_each_line(LineReader& lines, const std::function<Status(const TextLine&)>& visit);

}  // namespace jouleprof
