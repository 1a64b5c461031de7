#include "test_support.hpp"

#include <cstdlib>
#include <random>
#include <sstream>

namespace jouleprof::testing {

TempDir::TempDir() {
  std::random_device rd;
  const auto base = std::filesystem::temp_directory_path();
  for (;;) {
    path_ = base / ("jouleprof-test-" + std::to_string(rd()));
    if (std::filesystem::create_directory(path_)) break;
  }
}

TempDir::~TempDir() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

std::filesystem::path TempDir::write(const std::string& relative,
                                     const std::string& content) const {
  const auto target = path_ / relative;
  std::filesystem::create_directories(target.parent_path());
  std::ofstream(target) << content;
  return target;
}

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

void hide_gpu_libraries() {
  for (const char* variable :
       {"JOULEPROF_NVML_LIBRARY", "JOULEPROF_ROCM_SMI_LIBRARY", "JOULEPROF_LEVEL_ZERO_LIBRARY"}) {
    ::setenv(variable, "/nonexistent/gpu-library-hidden-by-the-test.so", 1);
  }
}

}  // namespace jouleprof::testing
