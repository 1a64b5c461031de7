// A channel that never gave a reading: every read failed (a RAPL counter above its range from the
// first read, a device that vanished), so the 0 J its summary holds measures nothing. The
// plausibility gate's figure_problems warns of it and reports show its figures as invalid.
#pragma once

#include "jouleprof/profile.hpp"

namespace jouleprof {

// Whether `channel` is a top-level energy channel whose series in `profile` holds no reading.
bool has_no_reading(const Profile& profile, const ChannelSummary& channel);

}  // namespace jouleprof
