// From the units that kernel interfaces and vendor libraries report in to joules and watts, for
// every backend: energies and powers are converted once, where they are read (DESIGN.md, rule 2).
#pragma once

namespace jouleprof {

inline constexpr double kJoulesPerMicrojoule = 1e-6;
inline constexpr double kJoulesPerMillijoule = 1e-3;
inline constexpr double kWattsPerMicrowatt = 1e-6;
inline constexpr double kWattsPerMilliwatt = 1e-3;

}  // namespace jouleprof
