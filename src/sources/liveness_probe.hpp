// Liveness probe: whether a source's readings show any sign of the hardware drawing power.
//
// Some machines expose a counter that never moves: virtual machines publish RAPL's perf events
// or powercap zones without feeding them, and a default run on one would report 0 J as a
// measurement. The default source choice probes the sources whose counters should move within a
// few milliseconds and leaves out those that do not; naming the source with --source still uses
// it.
#pragma once

#include <string>

#include "jouleprof/clock.hpp"
#include "jouleprof/source.hpp"

namespace jouleprof {

// Reads are this far apart, so a live counter is seen after a few milliseconds and one failed
// read does not decide.
inline constexpr TimeNs kProbeReadPeriodNs = 5 * kNsPerMs;

struct Liveness {
  bool alive = false;
  std::string evidence;  // what was seen, for the reason given when it is left out
};

// The probe's time. Runs use the monotonic clock and really sleep; tests pass a clock that moves
// only when the probe sleeps, so what the probe decides does not depend on how the test machine
// schedules threads.
class ProbeClock {
 public:
  virtual ~ProbeClock() = default;
  virtual TimeNs now_ns() = 0;
  virtual void sleep_ns(TimeNs duration_ns) = 0;
};

// CLOCK_MONOTONIC and std::this_thread::sleep_for.
ProbeClock& monotonic_probe_clock();

// Reads the source every kProbeReadPeriodNs for up to `window_ns` (the last read at the end of
// the window): alive as soon as a cumulative counter moves or a power channel reads above zero.
Liveness probe_liveness(Source& source, TimeNs window_ns,
                        ProbeClock& clock = monotonic_probe_clock());

}  // namespace jouleprof
