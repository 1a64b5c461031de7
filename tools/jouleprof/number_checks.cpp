#include "number_checks.hpp"

#include <fmt/format.h>

#include <charconv>
#include <string>

namespace jouleprof::cli {
namespace {

CLI::Validator lower_bound_check(bool inclusive, const char* what) {
  return CLI::Validator(
      [inclusive, what](std::string& text) -> std::string {
        double value = 0.0;
        const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
        const bool parsed = error == std::errc() && end == text.data() + text.size();
        if (parsed && (inclusive ? value >= 0.0 : value > 0.0)) return {};
        return fmt::format("must be a number {}, got '{}'", what, text);
      },
      inclusive ? "NON-NEGATIVE" : "POSITIVE");
}

}  // namespace

const CLI::Validator kPositiveNumber = lower_bound_check(false, "above 0");
const CLI::Validator kNonNegativeNumber = lower_bound_check(true, "of at least 0");

}  // namespace jouleprof::cli
