#include "number_checks.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "core/parse.hpp"
#include "jouleprof/exporter.hpp"

namespace jouleprof::cli {
namespace {

// `accept` judges a parsed finite value; `what` completes "must be a finite number …".
template <typename Accept>
CLI::Validator number_check(Accept accept, std::string what, std::string name) {
  return CLI::Validator(
      [accept, what](std::string& text) -> std::string {
        const std::optional<double> value = to_number(text);
        if (value && accept(*value)) return {};
        return fmt::format("must be a finite number{}, got '{}'", what, text);
      },
      std::move(name));
}

constexpr double kMsPerS = 1e3;

}  // namespace

const CLI::Validator kPositiveNumber =
    number_check([](double v) { return v > 0.0; }, " above 0", "POSITIVE");
const CLI::Validator kNonNegativeNumber =
    number_check([](double v) { return v >= 0.0; }, " of at least 0", "NON-NEGATIVE");
const CLI::Validator kFiniteNumber = number_check([](double) { return true; }, "", "NUMBER");

CLI::Validator number_in(double low, double high) {
  return number_check([low, high](double v) { return v >= low && v <= high; },
                      fmt::format(" from {} to {}", low, high), fmt::format("{}-{}", low, high));
}

CLI::Validator whole_number_in(std::int64_t low, std::int64_t high) {
  return CLI::Validator(
      [low, high](std::string& text) -> std::string {
        const std::optional<double> value = to_number(text);
        if (value && *value == std::trunc(*value) && *value >= static_cast<double>(low) &&
            *value <= static_cast<double>(high)) {
          return {};
        }
        return fmt::format("must be a whole number from {} to {}, got '{}'", low, high, text);
      },
      fmt::format("{}-{}", low, high));
}

CLI::Validator figure_of(FigureKind kind, bool zero_allowed) {
  const FigureBound& b = bound_of(kind);
  const double low = zero_allowed ? std::max(0.0, b.min) : b.min;
  const std::string unit = b.unit.empty() ? "" : fmt::format(" {}", b.unit);
  std::string what =
      low > 0.0 || (low == 0.0 && zero_allowed)
          ? fmt::format(" from {:g} to {:g}{} ({})", low, b.max, unit, b.why)
          : fmt::format(" above {:g} and at most {:g}{} ({})", low, b.max, unit, b.why);
  return number_check([low, zero_allowed, max = b.max](
                          double v) { return (zero_allowed ? v >= low : v > low) && v <= max; },
                      std::move(what), fmt::format("{:g}-{:g}", low, b.max));
}

CLI::Validator count_up_to(std::int64_t max) { return whole_number_in(1, max); }

const CLI::Validator kDurationSeconds = number_check(
    [](double v) { return v > 0.0 && v <= kMaxDurationSeconds; },
    fmt::format(" of seconds above 0 and at most {} (100 years)", kMaxDurationSeconds), "SECONDS");
const CLI::Validator kDurationSecondsOrZero = number_check(
    [](double v) { return v >= 0.0 && v <= kMaxDurationSeconds; },
    fmt::format(" of seconds from 0 to {} (100 years)", kMaxDurationSeconds), "SECONDS");
const CLI::Validator kIntervalMilliseconds =
    number_check([](double v) { return v > 0.0 && v <= kMaxDurationSeconds * kMsPerS; },
                 fmt::format(" of milliseconds above 0 and at most {} (100 years)",
                             kMaxDurationSeconds* kMsPerS),
                 "MS");
const CLI::Validator kExporterIntervalMilliseconds = number_check(
    [](double v) {
      constexpr double kMinMs = static_cast<double>(kMinExporterPollNs) / kNsPerMs;
      return v == 0.0 || (v >= kMinMs && v <= kMaxDurationSeconds * kMsPerS);
    },
    fmt::format(" of milliseconds: 0 (the sources' own period) or from {} to {} (100 years)",
                kMinExporterPollNs / kNsPerMs, kMaxDurationSeconds* kMsPerS),
    "MS");

}  // namespace jouleprof::cli
