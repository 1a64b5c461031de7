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

struct Liveness {
  bool alive = false;
  std::string evidence;  // what was seen, for the reason given when it is left out
};

// Reads the source every few milliseconds for up to `window_ns`: alive as soon as a cumulative
// counter moves or a power channel reads above zero.
Liveness probe_liveness(Source& source, TimeNs window_ns);

}  // namespace jouleprof
