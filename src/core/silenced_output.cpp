#include "core/silenced_output.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <iostream>

namespace jouleprof {
namespace {

// Points `fd` at /dev/null and returns a copy of what it was, or -1 (fd untouched).
int silence(int fd, int null_fd) {
  const int saved = ::fcntl(fd, F_DUPFD_CLOEXEC, 3);
  if (saved < 0) return -1;
  if (::dup2(null_fd, fd) < 0) {
    ::close(saved);
    return -1;
  }
  return saved;
}

void restore(int fd, int saved) {
  if (saved < 0) return;
  ::dup2(saved, fd);
  ::close(saved);
}

// What jouleprof itself buffered goes out before the descriptors change, and what the library
// buffered is dropped with them.
void flush_all() {
  std::cout.flush();
  std::cerr.flush();
  std::fflush(stdout);
  std::fflush(stderr);
}

}  // namespace

SilencedOutput::SilencedOutput() {
  flush_all();
  const int null_fd = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
  if (null_fd < 0) return;
  saved_stdout_ = silence(STDOUT_FILENO, null_fd);
  saved_stderr_ = silence(STDERR_FILENO, null_fd);
  ::close(null_fd);
}

SilencedOutput::~SilencedOutput() {
  flush_all();
  restore(STDOUT_FILENO, saved_stdout_);
  restore(STDERR_FILENO, saved_stderr_);
}

}  // namespace jouleprof
