// Checks for numeric options with messages a user can read: CLI11's PositiveNumber reports the
// range as "0.000000 to 1797693134862315708…" (the largest double written out).
#pragma once

#include <CLI/CLI.hpp>

namespace jouleprof::cli {

// "--interval: must be a number above 0, got '-5'"
extern const CLI::Validator kPositiveNumber;
// "--tail-wait: must be a number of at least 0, got '-1'"
extern const CLI::Validator kNonNegativeNumber;

}  // namespace jouleprof::cli
