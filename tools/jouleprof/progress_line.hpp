// Progress lines on stderr that rewrite themselves only on a terminal: a log file or a pipe gets
// plain lines, with no carriage return and no ANSI code (`run --epochs 5 -- … 2>log` leaves
// nothing but text in the log). Issue 22's progress renderer applies the same rule; the two can
// become one.
#pragma once

#include <ostream>
#include <string>
#include <string_view>

namespace jouleprof::cli {

// `status` shows a line that the next one replaces, on a terminal only (elsewhere it prints
// nothing, so that a log is not filled with one line per tick); `line` prints a line that stays,
// on a terminal after clearing the status line and redrawing it below.
class ProgressLine {
 public:
  ProgressLine(std::ostream& out, bool terminal) : out_(out), terminal_(terminal) {}
  // stderr, rewriting in place when stderr is a terminal.
  static ProgressLine for_stderr();
  ~ProgressLine() { clear(); }
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  void status(std::string_view text);
  void line(std::string_view text);
  // Removes the status line (before the command's final output).
  void clear();

  bool terminal() const { return terminal_; }

 private:
  std::ostream& out_;
  bool terminal_;
  std::string status_;  // what the terminal shows now; empty = nothing
};

}  // namespace jouleprof::cli
