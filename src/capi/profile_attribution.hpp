// Attribution as the C API and the monitor run it: options from JSON, and the run window as the
// default attribution window, so that a profile's tree sums to its measured total.
#pragma once

#include <nlohmann/json.hpp>

#include "jouleprof/attribution.hpp"
#include "jouleprof/profile.hpp"
#include "jouleprof/result.hpp"

namespace jouleprof::capi {

struct ProfileAttributionOptions {
  AttributionOptions attribution;
  bool run_window = true;  // false: the timeline's extent
};

// Reads "method", "idle_power_w", "window" and "split_passes" (see jp_attribute in jouleprof.h);
// other keys are left to the caller.
Result<ProfileAttributionOptions> profile_attribution_options(const nlohmann::json& options);

// Attributes profile.series over profile.timeline, records the options used in the profile.
Status attribute_profile_over_window(Profile& profile, ProfileAttributionOptions options);

}  // namespace jouleprof::capi
