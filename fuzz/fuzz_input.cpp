#include "fuzz_input.hpp"

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>

namespace jouleprof::fuzz {

std::string input_file(const std::uint8_t* data, std::size_t size, std::string_view name) {
  static const std::filesystem::path dir = [] {
    std::error_code ec;
    const std::filesystem::path base = std::filesystem::is_directory("/dev/shm", ec)
                                           ? "/dev/shm"
                                           : std::filesystem::temp_directory_path();
    const std::filesystem::path d = base / ("jouleprof-fuzz-" + std::to_string(getpid()));
    std::filesystem::create_directories(d, ec);
    return d;
  }();
  const std::string path = (dir / std::string(name)).string();
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) std::abort();  // the harness cannot run; not a finding about the parser
  if (size > 0 && std::fwrite(data, 1, size, f) != size) std::abort();
  std::fclose(f);
  return path;
}

}  // namespace jouleprof::fuzz
