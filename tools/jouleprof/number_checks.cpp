#include "number_checks.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <string>

namespace jouleprof::cli {
namespace {

// `accept` judges a parsed finite value; `what` completes "must be a finite number …".
template <typename Accept>
CLI::Validator number_check(Accept accept, std::string what, std::string name) {
  return CLI::Validator(
      [accept, what](std::string& text) -> std::string {
        double value = 0.0;
        const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
        const bool parsed = error == std::errc() && end == text.data() + text.size();
        if (parsed && std::isfinite(value) && accept(value)) return {};
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
