// The output half of the plausibility gate (DESIGN.md rule 13) for a whole profile, applied
// wherever a profile leaves the library: profile.json as written (write_profile_json,
// profile_to_json_string) and every report format (render_report). An energy or power beyond what
// any run can hold, and the 0 J of a channel that never gave a reading, become NaN, which JSON
// holds as null and every format shows as invalid; figure_problems' warnings say which they were.
// So a profile.json never stores a 300-digit figure that every reader would then have to withhold.
#pragma once

#include <optional>

#include "jouleprof/profile.hpp"

namespace jouleprof {

// A copy of `profile` with its implausible figures withheld and its problems added to its
// warnings; nullopt when figure_problems finds nothing, so a sound profile is never copied.
std::optional<Profile> withheld_for_output(const Profile& profile);

}  // namespace jouleprof
