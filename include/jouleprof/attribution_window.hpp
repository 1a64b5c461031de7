// Over which window an attribution charges a recording's readings: chosen in
// RecordingAttributionOptions, recorded in a profile's meta.options (attribution.window).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace jouleprof {

enum class AttributionWindow : std::uint8_t {
  kRun = 0,       // the recording's: its first and last mark, else the profile's run window, else
                  // the spans' extent; the tree then sums to what the channels measured in it
  kTimeline = 1,  // the spans' extent
};

std::string_view to_string(AttributionWindow window);
std::optional<AttributionWindow> attribution_window_from_string(std::string_view text);

}  // namespace jouleprof
