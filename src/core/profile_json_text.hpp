// profile.json's serialiser as it is, without the output gate (core/output_gate.hpp) that
// profile_to_json_string and write_profile_json apply: for a profile that has already been
// through the gate (render_report's json format), which a second pass would flag again for the
// figures the first one withheld.
#pragma once

#include <string>

#include "jouleprof/profile.hpp"

namespace jouleprof {

std::string ungated_profile_json(const Profile& profile, int indent, ProfileArrays arrays);

}  // namespace jouleprof
