#include "core/quantity_text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>

namespace jouleprof {

namespace {

// 100 → "100", 12.34 → "12.3", 1.234 → "1.23": three significant digits for 1 <= |m| < 1000.
std::string three_digits(double mantissa) {
  const double a = std::fabs(mantissa);
  if (a >= 99.95) return fmt::format("{:.0f}", mantissa);
  if (a >= 9.995) return fmt::format("{:.1f}", mantissa);
  return fmt::format("{:.2f}", mantissa);
}

}  // namespace

std::string format_si(double value, std::string_view unit) {
  if (!std::isfinite(value)) return "invalid";
  static constexpr std::array<std::string_view, 10> kPrefixes{"p", "n", "µ", "m", "",
                                                              "k", "M", "G", "T", "P"};
  constexpr int kUnitIndex = 4;  // kPrefixes[4] = no prefix
  const double a = std::fabs(value);
  if (a < 0.995e-12) return fmt::format("0 {}", unit);
  int index = static_cast<int>(std::floor(std::log10(a) / 3.0)) + kUnitIndex;
  index = std::clamp(index, 0, static_cast<int>(kPrefixes.size()) - 1);
  double mantissa = value / std::pow(1000.0, index - kUnitIndex);
  // 999.7 rounds to "1000": the next prefix says it in three digits ("1.00 k").
  if (std::fabs(mantissa) >= 999.5 && index + 1 < static_cast<int>(kPrefixes.size())) {
    ++index;
    mantissa /= 1000.0;
  }
  return fmt::format("{} {}{}", three_digits(mantissa), kPrefixes[static_cast<std::size_t>(index)],
                     unit);
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
  if (!std::isfinite(fraction)) return "invalid";
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
