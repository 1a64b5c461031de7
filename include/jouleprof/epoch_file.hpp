// Epoch ends across processes: a training job that calls jouleprof::epoch_end() / jp_epoch_end()
// under `jouleprof run --epochs N` appends the CLOCK_MONOTONIC time of each epoch end to the file
// named by JOULEPROF_EPOCH_FILE, and `run` reads it while the job runs to project the total.
#pragma once

#include <string>
#include <vector>

#include "jouleprof/clock.hpp"
#include "jouleprof/result.hpp"

namespace jouleprof {

inline constexpr const char* kEpochFileEnv = "JOULEPROF_EPOCH_FILE";

// Appends one line "<t_ns>\n" with a single write (atomic for a line this short); does nothing
// when the variable is unset. Never throws.
void notify_epoch_file(TimeNs t_ns) noexcept;

// Every complete line so far (a line still being written is left for the next read).
Result<std::vector<TimeNs>> read_epoch_file(const std::string& path);

}  // namespace jouleprof
