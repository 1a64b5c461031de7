// Spans from a measured child process (`jouleprof run --spans/--nvtx`): the child is told through
// its environment to record and to write its span dump at exit (JOULEPROF_SPANS_FILE, and
// NVTX_INJECTION64_PATH for NVTX programs); afterwards measure_run attributes the run's samples
// to the dump as to any trace.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "jouleprof/result.hpp"

namespace jouleprof {

// The environment variable NVTX clients read to find their injection library.
inline constexpr const char* kNvtxInjectionEnv = "NVTX_INJECTION64_PATH";
// Overrides where `run --nvtx` finds libjouleprof_nvtx.so.
inline constexpr const char* kNvtxLibraryEnv = "JOULEPROF_NVTX_LIBRARY";

// libjouleprof_nvtx.so: $JOULEPROF_NVTX_LIBRARY, else ../lib/ beside the running executable
// (the build tree's and an installation's layout). The error says how to fix it.
Result<std::string> find_nvtx_library();

struct ChildSpanCapture {
  std::string directory;   // where each process writes its dump, spans-<pid>.json
  std::string spans_path;  // the pattern: spans-%p.json
  std::vector<std::pair<std::string, std::string>> environment;  // what the child must inherit
};

// A capture writing into `directory` (created if missing), a dump per process that loads
// libjouleprof (the ranks a launcher starts, a program's subprocesses), so that none overwrites
// another's; with `nvtx_library`, NVTX ranges too.
Result<ChildSpanCapture> prepare_child_span_capture(const std::string& directory,
                                                    const std::string& nvtx_library);

}  // namespace jouleprof
