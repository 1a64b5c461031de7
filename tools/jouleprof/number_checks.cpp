#include "number_checks.hpp"

#include <fmt/format.h>

#include <string>

#include "core/parse.hpp"

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

}  // namespace jouleprof::cli
