#include "core/quantity_text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>

#include "core/figure_bounds.hpp"

namespace jouleprof {

namespace {

// What rounds to zero at picounits, the smallest prefix: printed as "0", never "-0.00".
constexpr double kSmallestShown = 0.995e-12;
// Beyond 1e15 of any unit no figure is a measurement (core/figure_bounds.hpp), and in P it would
// print as a 300-digit number.
constexpr double kMaxPrintedValue = 1e15;

// 100 → "100", 12.34 → "12.3", 1.234 → "1.23", 0.01234 → "0.0123": three significant digits.
std::string three_digits(double value) {
  const double a = std::fabs(value);
  if (a >= 99.95) return fmt::format("{:.0f}", value);
  int decimals = 2 - static_cast<int>(std::floor(std::log10(a)));
  // 9.996 to two decimals is "10.00", four digits: one decimal fewer says it in three.
  if (std::round(a * std::pow(10.0, decimals)) >= 1000.0) --decimals;
  return fmt::format("{:.{}f}", value, decimals);
}

}  // namespace

SiPrefix si_prefix_of(double reference) {
  static constexpr std::array<std::string_view, 10> kPrefixes{"p", "n", "µ", "m", "",
                                                              "k", "M", "G", "T", "P"};
  constexpr int kUnitIndex = 4;  // kPrefixes[4] = no prefix
  const double a = std::fabs(reference);
  if (!std::isfinite(a) || a < kSmallestShown) return {};
  int index = static_cast<int>(std::floor(std::log10(a) / 3.0)) + kUnitIndex;
  index = std::clamp(index, 0, static_cast<int>(kPrefixes.size()) - 1);
  // 999.7 rounds to "1000": the next prefix says it in three digits ("1.00 k").
  if (a / std::pow(1000.0, index - kUnitIndex) >= 999.5 &&
      index + 1 < static_cast<int>(kPrefixes.size())) {
    ++index;
  }
  return {kPrefixes[static_cast<std::size_t>(index)], std::pow(1000.0, index - kUnitIndex)};
}

std::string format_in(double value, SiPrefix prefix) {
  if (!std::isfinite(value) || std::fabs(value) > kMaxPrintedValue) return "invalid";
  if (std::fabs(value) < kSmallestShown) return "0";
  return three_digits(value / prefix.factor);
}

std::string format_si(double value, std::string_view unit) {
  // The output half of the plausibility gate: 1e308 J is no energy, and printed in P it would
  // take 300 digits.
  if (!plausible_magnitude(unit, value)) return "invalid";
  const SiPrefix prefix = si_prefix_of(value);
  return fmt::format("{} {}{}", format_in(value, prefix), prefix.symbol, unit);
}

std::string format_energy(double joules) { return format_si(joules, "J"); }

std::string format_power(double watts) { return format_si(watts, "W"); }

std::string format_duration(TimeNs ns) {
  const double s = ns_to_s(ns);
  if (s >= 119.5) {
    const auto whole = static_cast<long long>(std::llround(s));
    return fmt::format("{} min {:02d} s", whole / 60, whole % 60);
  }
  if (ns < 1000 && ns > -1000) return fmt::format("{} ns", ns);
  return format_si(s, "s");
}

std::string format_share(double fraction) {
  if (!plausible(FigureKind::kPercent, fraction * 100.0)) return "invalid";
  if (std::fabs(fraction) < 0.0005) return "0.0 %";
  return fmt::format("{:.1f} %", fraction * 100.0);
}

std::string format_uncertainty(const std::optional<EnergyBand>& band, double energy_j) {
  if (!band) return "";
  const double farther = std::max(energy_j - band->low_j, band->high_j - energy_j);
  if (!std::isfinite(farther)) return "invalid";
  if (energy_j == 0.0) return farther > 0.0 ? "±?" : "±0 %";
  const double percent = 100.0 * farther / std::fabs(energy_j);
  if (percent < 0.05) return "±0 %";
  return percent < 10.0 ? fmt::format("±{:.1f} %", percent) : fmt::format("±{:.0f} %", percent);
}

}  // namespace jouleprof
