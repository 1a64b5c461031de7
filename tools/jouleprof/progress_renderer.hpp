// The terminal side of progress reporting (jouleprof/progress.hpp): on a terminal one line on
// stderr that updates in place (carriage return and the ANSI "erase to end of line" code, on a
// terminal only); elsewhere (a log file, CI) plain lines at most once per line period; nothing
// when quiet. Time comes from the events themselves, so a reporter with a fake clock drives it in
// tests.
#pragma once

#include <cstddef>
#include <ostream>
#include <string>

#include "jouleprof/progress.hpp"

namespace jouleprof::cli {

enum class ProgressStyle { kTerminal, kLines, kQuiet };

// kQuiet when asked, kTerminal when `fd` is a terminal, kLines otherwise.
ProgressStyle progress_style_for(int fd, bool quiet);
// The terminal's width in columns (100 when it cannot be asked).
std::size_t terminal_width(int fd);

// "kernel-bench · conv-bn-relu_3 (2/40) · rep 1/3 · gate: cpu:package CV 0.041 > 0.030,
//  check 3, 6.0 s of 10 s · 0:42, ETA 3:10"
std::string progress_line(const ProgressEvent& event);

class ProgressRenderer {
 public:
  ProgressRenderer(std::ostream& out, ProgressStyle style, std::size_t width = 100,
                   TimeNs line_period_ns = 5 * kNsPerS);
  ~ProgressRenderer();
  ProgressRenderer(const ProgressRenderer&) = delete;
  ProgressRenderer& operator=(const ProgressRenderer&) = delete;

  void show(const ProgressEvent& event);
  // Prints a line of its own (an estimate, a finished item's figures): on a terminal the updating
  // line is cleared first and redrawn by the next event. Nothing when quiet.
  void print(const std::string& line);
  // Clears the updating line, before other output reaches the same terminal.
  void clear();

 private:
  std::ostream& out_;
  ProgressStyle style_;
  std::size_t width_;
  TimeNs line_period_ns_;
  TimeNs last_shown_ns_ = 0;
  bool shown_any_ = false;
  bool line_on_screen_ = false;
};

}  // namespace jouleprof::cli
