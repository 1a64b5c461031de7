// Trace timestamps: Chrome traces give microseconds as decimal numbers ("5132481649229.954").
// Read through a double they lose nanoseconds at today's epoch values, so the decimal text is
// converted exactly.
#pragma once

#include <optional>
#include <string_view>

#include "jouleprof/clock.hpp"

namespace jouleprof::timeline {

// The JSON number `token` (microseconds) in nanoseconds, rounded half away from zero beyond the
// third decimal; nullopt when it is not a number or does not fit 64 bits of nanoseconds.
std::optional<TimeNs> microseconds_token_to_ns(std::string_view token);

}  // namespace jouleprof::timeline
