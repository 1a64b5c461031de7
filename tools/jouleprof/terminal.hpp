// Where the command line's text goes: whether a stream is a terminal and how many columns the
// text is laid out to.
#pragma once

#include <cstddef>
#include <iosfwd>
#include <memory>

namespace jouleprof::cli {

// Columns for text written to `fd`: $COLUMNS when it holds a positive number, else the terminal's
// width when `fd` is a terminal, else kPipeColumns; kPipeColumns for fd < 0 (a file).
inline constexpr std::size_t kPipeColumns = 100;
std::size_t output_columns(int fd);

bool is_terminal(int fd);

// From its construction to its end, std::cout and std::cerr escape control characters
// (core/control_escapes.hpp), so that no input reaches a terminal raw: one, in main, for the
// whole run. raw_stderr() writes past the escape, for the progress line's own "\r\x1b[K"; what
// it writes from input it escapes itself.
class EscapedStandardStreams {
 public:
  EscapedStandardStreams();
  ~EscapedStandardStreams();
  EscapedStandardStreams(const EscapedStandardStreams&) = delete;
  EscapedStandardStreams& operator=(const EscapedStandardStreams&) = delete;

 private:
  struct Buffers;
  std::unique_ptr<Buffers> buffers_;
};

// Standard error without the escape (std::cerr itself when no EscapedStandardStreams is alive).
std::ostream& raw_stderr();

}  // namespace jouleprof::cli
