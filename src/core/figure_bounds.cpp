#include "core/figure_bounds.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

namespace jouleprof {

namespace {

// 100 years: s_to_ns of a longer time leaves 64-bit nanoseconds (292 years), and the flags that
// give a time stop here too (tools/jouleprof/number_checks.hpp).
constexpr double kMaxDurationS = 3.15e9;

constexpr std::array<FigureBound, 11> kBounds{{
    {"J", 0.0, 1e15, "1 MW for 32 years"},
    {"J", -1e15, 1e15, "1 MW for 32 years"},
    {"W", 0.0, kMaxDevicePowerW, "the most one device draws"},
    {"W", 0.0, kMaxDevicePowerW* kMaxDevices, "100 000 devices at 20 kW each"},
    {"W", -kMaxDevicePowerW* kMaxDevices, kMaxDevicePowerW* kMaxDevices,
     "100 000 devices at 20 kW each"},
    {"s", 0.0, kMaxDurationS, "100 years"},
    {"GFLOPs", 0.0, 1e12, "a million GPT-3 forward passes"},
    {"%", -1e6, 1e6, "10 000 times the reference"},
    {"", 0.0, 1e6, "10 000 times the best device's 100"},
    {"g/kWh", 0.0, 10'000.0, "ten times a lignite plant's 1 000"},
    {"W/GB", 0.0, 100.0, "about 250 times DRAM's 0.4"},
}};
static_assert(kBounds.size() == static_cast<std::size_t>(FigureKind::kPowerPerGigabyte) + 1,
              "one bound per figure kind");

}  // namespace

const FigureBound& bound_of(FigureKind kind) { return kBounds[static_cast<std::size_t>(kind)]; }

bool plausible(FigureKind kind, double value) {
  const FigureBound& b = bound_of(kind);
  return std::isfinite(value) && value >= b.min && value <= b.max;
}

std::string implausibility(FigureKind kind, double value) {
  if (plausible(kind, value)) return {};
  const FigureBound& b = bound_of(kind);
  const std::string unit = b.unit.empty() ? "" : fmt::format(" {}", b.unit);
  if (!std::isfinite(value)) return "is not a finite number";
  if (value < b.min) {
    return b.min == 0.0 ? "is negative" : fmt::format("is below {:g}{} ({})", b.min, unit, b.why);
  }
  return fmt::format("is above {:g}{} ({})", b.max, unit, b.why);
}

std::optional<std::string> withhold_implausible(FigureKind kind, std::string_view what,
                                                double& value) {
  std::string problem = implausibility(kind, value);
  if (problem.empty()) return std::nullopt;
  value = std::numeric_limits<double>::quiet_NaN();
  return fmt::format("{} {}: withheld", what, problem);
}

Status check_figure(FigureKind kind, std::string_view file, std::string_view field, double value) {
  const std::string problem = implausibility(kind, value);
  if (problem.empty()) return Status::Ok();
  return invalid_input(file, field, fmt::format("{:g}", value), problem);
}

Status check_measured_divisor(FigureKind kind, std::string_view file, std::string_view field,
                              double value) {
  JP_RETURN_IF_ERROR(check_figure(kind, file, field, value));
  if (value >= kSmallestMeasured) return Status::Ok();
  return invalid_input(file, field, fmt::format("{:g}", value),
                       fmt::format("is below {:g} {}, the smallest figure a counter resolves",
                                   kSmallestMeasured, bound_of(kind).unit));
}

bool plausible_magnitude(std::string_view unit, double value) {
  if (!std::isfinite(value)) return false;
  const double magnitude = std::fabs(value);
  // The widest bound of the unit: a sum of devices, a difference.
  double widest = 0.0;
  for (const FigureBound& b : kBounds) {
    if (b.unit == unit && !unit.empty()) widest = std::max(widest, b.max);
  }
  if (widest > 0.0) return magnitude <= widest;
  return magnitude <= 1e15;
}

}  // namespace jouleprof
