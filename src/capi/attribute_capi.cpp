// The attribution section of the C API: a profile's samples attributed to its own spans or to an
// imported trace, written as a new profile.
#include <fmt/format.h>

#include <exception>
#include <optional>
#include <string>

#include "attribution/trace_alignment.hpp"
#include "capi/json_options.hpp"
#include "capi/last_error.hpp"
#include "capi/profile_attribution.hpp"
#include "jouleprof/jouleprof.h"
#include "jouleprof/profile.hpp"
#include "jouleprof/trace_attach.hpp"

namespace {

namespace capi = jouleprof::capi;

jouleprof::Status attribute_files(const char* profile_path_in, const char* trace_path,
                                  const char* output_profile_path, const char* options_json) {
  JP_TRY(const nlohmann::json options,
         capi::parse_options_json(
             options_json, "jp_attribute",
             {"method", "idle_power_w", "window", "split_passes", "trace_offset_ns"}));
  JP_TRY(capi::ProfileAttributionOptions attribution, capi::profile_attribution_options(options));
  std::optional<jouleprof::TimeNs> trace_offset_ns;
  if (const auto it = options.find("trace_offset_ns"); it != options.end()) {
    if (!it->is_number_integer()) {
      return jouleprof::invalid_input("jp_attribute", "trace_offset_ns", it->dump(),
                                      "must be an integer (ns)");
    }
    trace_offset_ns = it->get<jouleprof::TimeNs>();
  }
  JP_TRY(jouleprof::Profile profile, jouleprof::read_profile_json(profile_path_in));
  if (trace_path != nullptr) {
    // The trace was recorded on the profile's host: attach_trace maps its realtime clock with the
    // run's anchor, unless an offset overrides the mapping.
    jouleprof::AttachTraceOptions attach;
    attach.offset_ns = trace_offset_ns;
    attach.samples_origin = profile_path_in;
    JP_RETURN_IF_ERROR(jouleprof::attach_trace(profile, trace_path, attach));
  }
  if (profile.timeline.spans().empty()) {
    return jouleprof::invalid_input(trace_path != nullptr ? trace_path : profile_path_in, "spans",
                                    "0", "there are no spans to attribute to");
  }
  profile.meta.kind = "attribute";
  JP_RETURN_IF_ERROR(capi::attribute_profile_over_window(profile, std::move(attribution)));
  JP_RETURN_IF_ERROR(jouleprof::attribution::check_energy_reached_spans(profile));
  return jouleprof::write_profile_json(profile, output_profile_path);
}

}  // namespace

extern "C" jp_status jp_attribute(const char* profile_path_in, const char* trace_path,
                                  const char* output_profile_path, const char* options_json) {
  if (profile_path_in == nullptr || output_profile_path == nullptr) {
    return capi::fail(jouleprof::ErrorCode::kInvalidInput,
                      "jp_attribute: profile_path_in and output_profile_path must not be NULL");
  }
  try {
    const jouleprof::Status done =
        attribute_files(profile_path_in, trace_path, output_profile_path, options_json);
    return done ? JP_OK : capi::fail(done.error());
  } catch (...) {
    return capi::fail_from_exception(std::current_exception());
  }
}
