// The registry's entry point with the liveness probe's clock passed in (jouleprof/sources.hpp's
// discover_sources uses the monotonic clock), so that tests decide what a probed counter does
// between reads without depending on when a thread runs.
#pragma once

#include "jouleprof/result.hpp"
#include "jouleprof/sources.hpp"
#include "sources/liveness_probe.hpp"

namespace jouleprof {

Result<SourceDiscovery> discover_sources(const SourceOptions& options, ProbeClock& probe_clock);

}  // namespace jouleprof
