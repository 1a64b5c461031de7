// The attribution methods (docs/attribution.md): asked for in AttributionOptions, recorded per
// channel in a profile's AttributionRecord. Written to files by name.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace jouleprof {

enum class AttributionMethod : std::uint8_t {
  kAuto = 0,         // choose per channel (see AttributionOptions::fine_counter_ratio)
  kInterpolate = 1,  // linear interpolation of the cumulative counter, equal/weighted split;
                     // on counters refined below the update period by fitted class powers
  kHold = 2,         // Smaragdine: last power sample held over each elementary interval
  kRegress = 3,      // NNLS of counter-window energies on per-class busy time
  kCalibrated = 4,   // window energy split ∝ busy time × calibrated class power
  kTimeSplit = 5,    // baseline: the run's energy split by busy time alone
};

std::string_view to_string(AttributionMethod m);
// A channel's recorded method, or "none" when it had nothing to give.
std::string_view recorded_method_name(const std::optional<AttributionMethod>& m);
// Also takes "time_split" and "timesplit" for "time-split".
std::optional<AttributionMethod> attribution_method_from_string(std::string_view s);

}  // namespace jouleprof
