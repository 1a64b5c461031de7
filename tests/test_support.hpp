// Helpers shared by jouleprof's tests: temporary directories and the reference data location.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace jouleprof::testing {

// A fresh directory under the system temp dir, removed when the object goes away.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  // Writes `content` to path()/relative, creating parent directories.
  std::filesystem::path write(const std::string& relative, const std::string& content) const;

 private:
  std::filesystem::path path_;
};

// ../shared/data as configured at build time.
inline std::filesystem::path shared_data() { return JOULEPROF_SHARED_DATA; }
inline std::filesystem::path fixtures() { return JOULEPROF_FIXTURES; }

std::string read_file(const std::filesystem::path& path);

// A fake root hides sysfs and /proc, but the GPU libraries (NVML, ROCm SMI, Level Zero) are found
// through the dynamic loader: this points each at a path that does not exist, so that a GPU of
// the test machine cannot join the default set (in this process and the ones it starts).
void hide_gpu_libraries();

}  // namespace jouleprof::testing

// Skips the test when the reference recordings are not beside the checkout.
#define JP_REQUIRE_SHARED_DATA(relative)                                              \
  do {                                                                                \
    if (!std::filesystem::exists(::jouleprof::testing::shared_data() / (relative))) { \
      GTEST_SKIP() << "reference data missing: "                                      \
                   << (::jouleprof::testing::shared_data() / (relative));             \
    }                                                                                 \
  } while (false)
