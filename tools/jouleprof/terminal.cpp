#include "terminal.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

#include <cstdlib>
#include <string_view>

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

}  // namespace jouleprof::cli
