// Where a measurement goes when it cannot be written where it was asked to go (docs/bad-input.md,
// promise 4): the temporary directory, then the working directory. Neither lookup throws, so an
// unusable TMPDIR (TMPDIR=/nonexistent) costs one fallback, not the measurement.
#pragma once

#include <filesystem>
#include <string_view>
#include <vector>

namespace jouleprof {

// $TMPDIR (or /tmp) when it is a directory, else the working directory: for files that only live
// while a run does (the epoch file, the span dump's directory).
std::filesystem::path scratch_directory();

// <temporary directory>/name and <working directory>/name, the ones that can be found, in that
// order.
std::vector<std::filesystem::path> rescue_directories(std::string_view name);

}  // namespace jouleprof
