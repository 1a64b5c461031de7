// The stability gate (FECoM): a machine is stable enough to measure on when, over the last N
// samples of every channel, the coefficient of variation (stdev / mean of the interval power) is
// at most a threshold, and temperatures are below their caps.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "jouleprof/interval_trace.hpp"

namespace jouleprof {

// Published defaults (METHODS.md §2): N = 20; CV ≤ 0.03 for CPU and DRAM, 0.01 for GPU power;
// an optional relative tolerance loosens the threshold to max_cv × (1 + tolerance).
struct StabilityOptions {
  std::size_t last_n = 20;
  double max_cv = 0.03;
  double tolerance = 0.0;
};

inline constexpr double kFecomCpuMaxCv = 0.03;
inline constexpr double kFecomDramMaxCv = 0.03;
inline constexpr double kFecomGpuMaxCv = 0.01;
inline constexpr double kFecomCpuMaxTemperatureC = 55.0;
inline constexpr double kFecomGpuMaxTemperatureC = 40.0;

struct StabilityCheck {
  bool stable = false;
  double cv = 0.0;
  double threshold = 0.0;
  double mean_power_w = 0.0;
  std::size_t samples = 0;
  std::string reason;  // why it is not stable; empty when stable
};

// Looks at the last `options.last_n` samples that end at or before `at_ns`.
StabilityCheck check_stability(const IntervalTrace& trace, TimeNs at_ns,
                               const StabilityOptions& options);

}  // namespace jouleprof
