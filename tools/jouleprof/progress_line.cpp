#include "progress_line.hpp"

#include <unistd.h>

#include <iostream>

#include "core/control_escapes.hpp"
#include "terminal.hpp"

namespace jouleprof::cli {
namespace {

// Erase the line the cursor is on and go back to its start.
constexpr std::string_view kClearLine = "\r\033[K";

}  // namespace

ProgressLine ProgressLine::for_stderr() {
  return ProgressLine(raw_stderr(), isatty(STDERR_FILENO) != 0);
}

void ProgressLine::status(std::string_view text) {
  if (!terminal_) return;
  status_ = escape_control_characters(text);
  out_ << kClearLine << status_ << std::flush;
}

void ProgressLine::line(std::string_view text) {
  if (terminal_ && !status_.empty()) out_ << kClearLine;
  out_ << escape_control_characters(text) << '\n';
  if (terminal_ && !status_.empty()) out_ << status_;
  out_ << std::flush;
}

void ProgressLine::clear() {
  if (terminal_ && !status_.empty()) out_ << kClearLine << std::flush;
  status_.clear();
}

}  // namespace jouleprof::cli
