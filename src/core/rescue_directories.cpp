#include "core/rescue_directories.hpp"

#include <system_error>

namespace jouleprof {

namespace fs = std::filesystem;

namespace {

std::vector<fs::path> usable_directories() {
  std::vector<fs::path> found;
  std::error_code ec;
  // temp_directory_path(ec) reports a TMPDIR that is not a directory instead of throwing.
  if (fs::path tmp = fs::temp_directory_path(ec); !ec && !tmp.empty()) found.push_back(tmp);
  if (fs::path here = fs::current_path(ec); !ec && !here.empty()) found.push_back(here);
  return found;
}

}  // namespace

fs::path scratch_directory() {
  const std::vector<fs::path> found = usable_directories();
  return found.empty() ? fs::path(".") : found.front();
}

std::vector<fs::path> rescue_directories(std::string_view name) {
  std::vector<fs::path> dirs;
  for (const fs::path& d : usable_directories()) dirs.push_back(d / name);
  return dirs;
}

}  // namespace jouleprof
