#include "jouleprof/epoch_file.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "core/text_file.hpp"

namespace jouleprof {

void notify_epoch_file(TimeNs t_ns) noexcept {
  static const char* const path = std::getenv(kEpochFileEnv);
  if (path == nullptr || *path == '\0') return;
  const int fd = ::open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return;
  char line[32];
  const auto written = fmt::format_to_n(line, sizeof(line), "{}\n", t_ns);
  (void)!::write(fd, line, written.size);
  ::close(fd);
}

Result<std::vector<TimeNs>> read_epoch_file(const std::string& path) {
  std::vector<TimeNs> ends;
  Result<std::string> read = read_text_file(path, "epoch file");
  if (!read && read.error().code() == ErrorCode::kNotFound) return ends;  // no epoch ended yet
  JP_TRY(const std::string text, std::move(read));
  std::size_t line_no = 0;
  std::size_t begin = 0;
  for (std::size_t end = text.find('\n'); end != std::string::npos; end = text.find('\n', begin)) {
    ++line_no;
    const std::string line = text.substr(begin, end - begin);
    begin = end + 1;
    char* stop = nullptr;
    const long long value = std::strtoll(line.c_str(), &stop, 10);
    if (line.empty() || stop == nullptr || *stop != '\0' || value <= 0) {
      return invalid_input(fmt::format("{}:{}", path, line_no), "t_ns", line,
                           "not a positive integer time");
    }
    ends.push_back(value);
  }
  return ends;
}

}  // namespace jouleprof
