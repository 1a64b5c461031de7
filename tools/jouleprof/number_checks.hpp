// Checks for numeric options with messages a user can read: CLI11's PositiveNumber reports the
// range as "0.000000 to 1797693134862315708…" (the largest double written out), and its Range
// lets NaN through (NaN compares false with both bounds). Every check here refuses NaN and
// infinities: no number on the command line may be one.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>

#include "core/figure_bounds.hpp"

namespace jouleprof::cli {

// Upper bounds of the flags that size a loop or an allocation, each far above any sensible run
// but low enough that the run fails at once rather than after minutes and gigabytes.
// A forest or boosted ensemble keeps every tree in memory; published predictors use 100-1000.
inline constexpr std::int64_t kMaxTrees = 100'000;
// The STEP projection and the run's epoch table keep one record per epoch.
inline constexpr std::int64_t kMaxEpochs = 1'000'000;
// Steps, repetitions, draws and samples are each at least one measured call or fit.
inline constexpr std::int64_t kMaxRepetitions = 10'000'000;
// compare --last: a baseline is the recent past of a branch, every run of it read from the history.
inline constexpr std::int64_t kMaxBaselineRuns = 10'000;
// More threads than any machine's cores only adds contention.
inline constexpr std::int64_t kMaxThreads = 1024;
// 100 years: s_to_ns of anything up to it fits 64-bit nanoseconds (which end after 292 years).
inline constexpr double kMaxDurationSeconds = 3.15e9;

// "--interval: must be a finite number above 0, got '-5'"
extern const CLI::Validator kPositiveNumber;
// "--tail-wait: must be a finite number of at least 0, got '-1'"
extern const CLI::Validator kNonNegativeNumber;
// "--cpu-max-temp: must be a finite number, got 'nan'"
extern const CLI::Validator kFiniteNumber;
// "--split: must be a finite number from 0 to 1, got '2'"
CLI::Validator number_in(double low, double high);
// "--warmup: must be a whole number from 0 to 10000000, got '2.5'"
CLI::Validator whole_number_in(std::int64_t low, std::int64_t high);
// "--trees: must be a whole number from 1 to 100000, got '2000000000'"
CLI::Validator count_up_to(std::int64_t max);
// A figure of `kind`, within the plausibility gate's bounds (core/figure_bounds.hpp), above 0
// unless `zero_allowed`: "--gflops: must be a finite number above 0 and at most 1e+12 GFLOPs (a
// million GPT-3 forward passes), got '1e308'"
CLI::Validator figure_of(FigureKind kind, bool zero_allowed = false);
// "--duration: must be a finite number of seconds above 0 and at most 3150000000 (100 years),
// got '1e308'"
extern const CLI::Validator kDurationSeconds;
// As kDurationSeconds, for the flags where 0 means none.
extern const CLI::Validator kDurationSecondsOrZero;
// "--interval: must be a finite number of milliseconds above 0 and at most 3150000000000
// (100 years), got '1e300'"
extern const CLI::Validator kIntervalMilliseconds;
// The exporter's polling interval: 0 (the sources' own period) or from kMinExporterPollNs, which
// it would otherwise raise the interval to without a word.
extern const CLI::Validator kExporterIntervalMilliseconds;

}  // namespace jouleprof::cli
