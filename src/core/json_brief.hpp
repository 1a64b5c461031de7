// A short description of a JSON value for an error message. nlohmann's dump() recurses into the
// value and copies all of it, so an error about a deeply nested or huge value from a hostile file
// would overflow the stack or flood the message; this never looks further than one level.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace jouleprof {

// Scalars as JSON text (strings cut at 80 characters); arrays and objects by size.
std::string json_brief(const nlohmann::json& value);

}  // namespace jouleprof
