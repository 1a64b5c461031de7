// Nothing impossible leaves (DESIGN.md rule 13): the physical range of each kind of figure, defined
// once here and used twice, on entry (a file's field, a flag, a C API argument is refused beyond
// it) and at the output (format_si and format_share print "invalid" beyond it, and
// figure_problems warns of a profile holding such a figure). docs/bad-input.md lists the bounds.
//
//   if (!plausible(FigureKind::kEnergy, joules)) …                      // withhold, with a warning
//   JP_RETURN_IF_ERROR(check_figure(FigureKind::kPower, file, "power_w", watts));    // refuse
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "jouleprof/result.hpp"

namespace jouleprof {

// The most one device draws: a whole 8-GPU node at the wall, twice over (the largest of
// sources/plausibility's power ceilings).
inline constexpr double kMaxDevicePowerW = 20'000.0;
// The most devices one figure may sum: a 100 000-GPU cluster.
inline constexpr double kMaxDevices = 100'000.0;

// The smallest non-zero figure a counter or meter resolves: a pico-unit (format_si's smallest
// prefix). A measured figure that others are divided by must reach it, or the quotient is noise
// blown up (a score-table cell of 1e-308 J gave an IECS of 15 032 188 088).
inline constexpr double kSmallestMeasured = 1e-12;

enum class FigureKind : std::uint8_t {
  kEnergy,         // J, never negative: 1 MW for 32 years is 1e15 J
  kEnergyChange,   // J, a difference of two energies: as kEnergy, either sign
  kDevicePower,    // W of one device, never negative: kMaxDevicePowerW
  kPower,          // W, never negative (a battery's is a kPowerChange): every device at its ceiling
  kPowerChange,    // W, either sign
  kDuration,       // s, never negative: 100 years (what 64-bit nanoseconds hold, with margin)
  kFlops,          // GFLOPs of one sample or step: a million times a GPT-3 forward pass
  kPercent,        // %, a share or a relative change: 10 000 times the reference either way
  kScore,          // a dimensionless score or ratio between devices (PCS, IECS, MAPE as a share)
  kGridIntensity,  // g CO2e per kWh of a power grid
  kPowerPerGigabyte,  // W per GB of memory (a RAM power model)
};

struct FigureBound {
  std::string_view unit;  // as printed: "J", "W", "s", "GFLOPs", "%", ""
  double min = 0.0;
  double max = 0.0;
  std::string_view why;  // "1 MW for 32 years": what the bound stands for
};
const FigureBound& bound_of(FigureKind kind);

// Finite and within the kind's bounds.
bool plausible(FigureKind kind, double value);

// Why `value` cannot be a figure of `kind` ("1e+308 J is above the 1e+15 J of 1 MW for 32 years"),
// or "" when it can.
std::string implausibility(FigureKind kind, double value);

// The output half: a figure outside its kind's bounds becomes NaN (printed "invalid", written to
// JSON as null) and the warning returned says which figure and why ("the predicted energy is above
// 1e+15 J (1 MW for 32 years): withheld"); nothing for a plausible figure.
std::optional<std::string> withhold_implausible(FigureKind kind, std::string_view what,
                                                double& value);

// The same as an input error: `file` (or "--flag"), `field` and the value, or Ok.
Status check_figure(FigureKind kind, std::string_view file, std::string_view field, double value);
// As check_figure, for a measured figure that is divided by: also at least kSmallestMeasured.
Status check_measured_divisor(FigureKind kind, std::string_view file, std::string_view field,
                              double value);

// A figure printed with `unit` ("J", "W", "s") is bounded by the kind of that unit, either sign;
// any other unit by 1e15 of it. format_si prints "invalid" for a value outside.
bool plausible_magnitude(std::string_view unit, double value);

}  // namespace jouleprof
