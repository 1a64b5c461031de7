// Checks for numeric options with messages a user can read: CLI11's PositiveNumber reports the
// range as "0.000000 to 1797693134862315708…" (the largest double written out), and its Range
// lets NaN through (NaN compares false with both bounds). Every check here refuses NaN and
// infinities: no number on the command line may be one.
#pragma once

#include <CLI/CLI.hpp>

namespace jouleprof::cli {

// "--interval: must be a finite number above 0, got '-5'"
extern const CLI::Validator kPositiveNumber;
// "--tail-wait: must be a finite number of at least 0, got '-1'"
extern const CLI::Validator kNonNegativeNumber;
// "--cpu-max-temp: must be a finite number, got 'nan'"
extern const CLI::Validator kFiniteNumber;
// "--split: must be a finite number from 0 to 1, got '2'"
CLI::Validator number_in(double low, double high);

}  // namespace jouleprof::cli
