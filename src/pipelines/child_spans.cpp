#include "pipelines/child_spans.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>
#include <system_error>

#include "jouleprof/recorder.hpp"

namespace jouleprof {

namespace fs = std::filesystem;

Result<std::string> find_nvtx_library() {
  if (const char* env = std::getenv(kNvtxLibraryEnv); env != nullptr && *env != '\0') {
    if (!fs::is_regular_file(env)) {
      return Error(ErrorCode::kNotFound, fmt::format("{}={}: no such file", kNvtxLibraryEnv, env));
    }
    return fs::absolute(env).string();
  }
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  const fs::path beside =
      ec ? fs::path() : exe.parent_path().parent_path() / "lib" / "libjouleprof_nvtx.so";
  if (!beside.empty() && fs::is_regular_file(beside)) return beside.string();
  return Error(
      ErrorCode::kNotFound,
      fmt::format("libjouleprof_nvtx.so not found at {}; build the jouleprof_nvtx target or set {}",
                  beside.empty() ? std::string("../lib beside the executable") : beside.string(),
                  kNvtxLibraryEnv));
}

Result<ChildSpanCapture> prepare_child_span_capture(const std::string& directory,
                                                    const std::string& nvtx_library) {
  std::error_code ec;
  fs::remove_all(directory, ec);  // a stale dump must not pass for this run's
  fs::create_directories(directory, ec);
  if (ec)
    return Error(ErrorCode::kIo,
                 fmt::format("{}: cannot create the directory: {}", directory, ec.message()));
  ChildSpanCapture capture;
  capture.directory = directory;
  capture.spans_path = (fs::path(directory) / "spans-%p.json").string();
  capture.environment.emplace_back(kSpansFileEnv, capture.spans_path);
  if (!nvtx_library.empty()) capture.environment.emplace_back(kNvtxInjectionEnv, nvtx_library);
  return capture;
}

}  // namespace jouleprof
