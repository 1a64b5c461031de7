// Epoch boundaries across processes: a training job that calls jouleprof::epoch_begin() /
// epoch_end() (jp_epoch_begin / jp_epoch_end) under `jouleprof run --epochs N` appends one line
// per boundary to the file named by JOULEPROF_EPOCH_FILE — "begin <t_ns>" or "end <t_ns>", the
// CLOCK_MONOTONIC time — and `run` reads it while the job runs to project the total. A bare
// "<t_ns>" line (what jouleprof 0.x wrote for an epoch end) is read as an end.
#pragma once

#include <string>
#include <vector>

#include "jouleprof/clock.hpp"
#include "jouleprof/result.hpp"

namespace jouleprof {

inline constexpr const char* kEpochFileEnv = "JOULEPROF_EPOCH_FILE";

struct EpochBoundary {
  enum class Kind { kBegin, kEnd };
  Kind kind = Kind::kEnd;
  TimeNs t_ns = 0;
};

// Appends one line with a single write (atomic for a line this short); does nothing when the
// variable is unset. Never throws.
void notify_epoch_file(EpochBoundary::Kind kind, TimeNs t_ns) noexcept;

// Every complete line so far, in file order (a line still being written is left for the next
// read); no file yet is no boundary yet.
Result<std::vector<EpochBoundary>> read_epoch_file(const std::string& path);

}  // namespace jouleprof
