#include "capi/profile_attribution.hpp"

#include <string>

#include "core/json_brief.hpp"
#include "training/epoch_summary.hpp"

namespace jouleprof::capi {

namespace {
constexpr std::string_view kCall = "jp_attribute";
}

Result<ProfileAttributionOptions> profile_attribution_options(const nlohmann::json& options) {
  ProfileAttributionOptions out;
  if (const auto it = options.find("method"); it != options.end()) {
    const std::optional<AttributionMethod> method =
        it->is_string() ? attribution_method_from_string(it->get<std::string>()) : std::nullopt;
    if (!method) {
      return invalid_input(kCall, "method", it->dump(),
                           "must be auto, interpolate, hold, regress, calibrated or time-split");
    }
    out.attribution.default_method = *method;
  }
  if (const auto it = options.find("idle_power_w"); it != options.end()) {
    if (!it->is_object())
      return invalid_input(kCall, "idle_power_w", it->dump(), "must be an object");
    for (const auto& [channel, watts] : it->items()) {
      if (!watts.is_number() || watts.get<double>() < 0.0) {
        return invalid_input(kCall, "idle_power_w." + channel, json_brief(watts),
                             "must be a non-negative number of watts");
      }
      out.attribution.idle_power_w[channel] = watts.get<double>();
    }
  }
  if (const auto it = options.find("window"); it != options.end()) {
    if (*it == "run") {
      out.run_window = true;
    } else if (*it == "timeline") {
      out.run_window = false;
    } else {
      return invalid_input(kCall, "window", it->dump(), "must be \"run\" or \"timeline\"");
    }
  }
  if (const auto it = options.find("split_passes"); it != options.end()) {
    if (!it->is_boolean())
      return invalid_input(kCall, "split_passes", it->dump(), "must be true or false");
    out.attribution.split_passes = it->get<bool>();
  }
  return out;
}

Status attribute_profile_over_window(Profile& profile, ProfileAttributionOptions options) {
  if (options.run_window && profile.meta.end_ns > profile.meta.begin_ns) {
    options.attribution.window_begin_ns = profile.meta.begin_ns;
    options.attribution.window_end_ns = profile.meta.end_ns;
  } else if (!options.run_window) {
    const auto [begin_ns, end_ns] = profile.timeline.extent();
    options.attribution.window_begin_ns = begin_ns;
    options.attribution.window_end_ns = end_ns;
  }
  JP_RETURN_IF_ERROR(attribute_profile(profile, options.attribution));
  profile.meta.options["attribution.window"] = options.run_window ? "run" : "timeline";
  summarize_epochs(profile);
  return Status::Ok();
}

}  // namespace jouleprof::capi
