// StaticShare: how the static (idle) part of a shared counter's energy is given out to the observed
// processes (docs/sharing.md). Recorded in profiles by name.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace jouleprof {

// Fixed values.
enum class StaticShare : std::uint8_t {
  kCpuTime = 0,  // by the same activity share as the dynamic part: the published Smaragdine rule
                 // (share of the whole package power), needs no baseline, and the figures of all
                 // processes add up to the machine's energy
  kNone = 1,     // none: the observed processes get only their share of the dynamic energy
                 // (what running them added); needs a baseline
  kAll = 2,      // all of it: as if the machine were on for them alone; needs a baseline
};
std::string_view to_string(StaticShare s);
std::optional<StaticShare> static_share_from_string(std::string_view s);

}  // namespace jouleprof
