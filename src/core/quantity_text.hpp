// Energies, powers, durations and shares as people read them: three significant digits and a
// unit. Every report, the CLI's progress lines and the measurement protocol's notes print figures
// through these, so one figure reads the same wherever it appears.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "jouleprof/clock.hpp"
#include "jouleprof/energy_band.hpp"

namespace jouleprof {

// Three significant digits with an SI prefix (p … P): format_si(0.000684, "J") = "684 µJ",
// format_si(4561, "J") = "4.56 kJ". A value that rounds to zero at picounits prints "0 J", never
// "-0.00"; NaN and infinities print "invalid" (the profile's warnings say which figure).
std::string format_si(double value, std::string_view unit);
// Figures read side by side in one column share one unit: the SI prefix that format_si gives the
// column's reference figure (si_prefix_of(4561) is k, 1000); no prefix for zero or NaN.
struct SiPrefix {
  std::string_view symbol;  // "k"
  double factor = 1.0;      // 1000
};
SiPrefix si_prefix_of(double reference);
// `value` in units of `prefix`, without the unit, to three significant digits (every integer digit
// from 1000 on): with k, 4561 → "4.56", 45.6 → "0.0456", 4.56e6 → "4560". Zero and NaN print as
// format_si prints them ("0", "invalid").
std::string format_in(double value, SiPrefix prefix);
// format_si in joules and watts.
std::string format_energy(double joules);
std::string format_power(double watts);
// "1.50 s", "12.0 ms", "3.20 µs", "2 min 05 s".
std::string format_duration(TimeNs ns);
// "12.5 %"; "0.0 %" for what rounds to zero, never "-0.0 %".
std::string format_share(double fraction);
// A figure's 95 % interval as a share of it, from its farther end: "±4.1 %", "±120 %"; "" without
// an interval, "±0 %" for an exact figure, and "±?" for a figure of 0 J with a non-empty interval.
std::string format_uncertainty(const std::optional<EnergyBand>& band, double energy_j);

}  // namespace jouleprof
