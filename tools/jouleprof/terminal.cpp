#include "terminal.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

#include <cstdlib>
#include <iostream>
#include <ostream>
#include <string_view>

#include "core/control_escapes.hpp"
#include "core/parse.hpp"

namespace jouleprof::cli {

bool is_terminal(int fd) { return isatty(fd) != 0; }

std::size_t output_columns(int fd) {
  if (fd < 0) return kPipeColumns;
  if (const char* columns = std::getenv("COLUMNS"); columns != nullptr && *columns != '\0') {
    const std::optional<std::size_t> value = to_integer<std::size_t>(columns);
    if (value && *value > 0) return *value;
  }
  winsize size{};
  if (is_terminal(fd) && ioctl(fd, TIOCGWINSZ, &size) == 0 && size.ws_col > 0) return size.ws_col;
  return kPipeColumns;
}

namespace {

std::ostream* unescaped_stderr = nullptr;  // while an EscapedStandardStreams is alive

}  // namespace

struct EscapedStandardStreams::Buffers {
  std::streambuf* cout_target = std::cout.rdbuf();
  std::streambuf* cerr_target = std::cerr.rdbuf();
  ControlEscapingBuffer cout_escaped{cout_target};
  ControlEscapingBuffer cerr_escaped{cerr_target};
  std::ostream raw_cerr{cerr_target};
};

EscapedStandardStreams::EscapedStandardStreams() : buffers_(std::make_unique<Buffers>()) {
  std::cout.rdbuf(&buffers_->cout_escaped);
  std::cerr.rdbuf(&buffers_->cerr_escaped);
  unescaped_stderr = &buffers_->raw_cerr;
}

EscapedStandardStreams::~EscapedStandardStreams() {
  std::cout.flush();
  std::cerr.flush();
  std::cout.rdbuf(buffers_->cout_target);
  std::cerr.rdbuf(buffers_->cerr_target);
  unescaped_stderr = nullptr;
}

std::ostream& raw_stderr() { return unescaped_stderr != nullptr ? *unescaped_stderr : std::cerr; }

}  // namespace jouleprof::cli
