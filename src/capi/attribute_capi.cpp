// The attribution section of the C API: jp_attribute's options JSON read into the library's
// attribute_recording_files, whose profile it writes.
#include <exception>
#include <optional>
#include <string>

#include "capi/json_options.hpp"
#include "capi/last_error.hpp"
#include "jouleprof/jouleprof.h"
#include "jouleprof/recording_attribution.hpp"

namespace {

namespace capi = jouleprof::capi;
using jouleprof::JsonFields;
using nlohmann::json;

constexpr JsonFields kAttributeOptions("jp_attribute options_json");

jouleprof::Status read_names(const json& options, jouleprof::RecordingAttributionOptions& out) {
  if (JsonFields::find(options, "method")) {
    JP_TRY(out.method, kAttributeOptions.named<jouleprof::AttributionMethod>(
                           options, "method", "", jouleprof::attribution_method_from_string,
                           "auto, interpolate, hold, regress, calibrated, time-split"));
  }
  if (JsonFields::find(options, "classes")) {
    JP_TRY(out.classes,
           kAttributeOptions.named<jouleprof::SpanClasses>(
               options, "classes", "", jouleprof::span_classes_from_string, "name, kernel"));
  }
  if (JsonFields::find(options, "window")) {
    JP_TRY(out.window,
           kAttributeOptions.named<jouleprof::AttributionWindow>(
               options, "window", "", jouleprof::attribution_window_from_string, "run, timeline"));
  }
  return jouleprof::Status::Ok();
}

bool is_watts(double w) { return w >= 0.0; }

// A number of watts for every top-level channel, or an object of them by channel id.
jouleprof::Status read_idle_power(const json& options,
                                  jouleprof::RecordingAttributionOptions& out) {
  const json* idle = JsonFields::find(options, "idle_power_w");
  if (idle == nullptr) return jouleprof::Status::Ok();
  if (!idle->is_object()) {
    JP_TRY(out.idle_power_w, kAttributeOptions.value<double>(
                                 *idle, "idle_power_w", is_watts,
                                 "is not a non-negative number of watts or an object of them"));
    return jouleprof::Status::Ok();
  }
  for (const auto& [channel, w] : idle->items()) {
    JP_TRY(out.idle_power_w_by_channel[channel],
           kAttributeOptions.value<double>(w, "idle_power_w." + channel, is_watts,
                                           "is not a non-negative number of watts"));
  }
  return jouleprof::Status::Ok();
}

jouleprof::Status read_channel_devices(const json& options,
                                       jouleprof::RecordingAttributionOptions& out) {
  const json* devices = JsonFields::find(options, "channel_devices");
  if (devices == nullptr) return jouleprof::Status::Ok();
  JP_TRY(const json* checked, kAttributeOptions.object(*devices, "channel_devices"));
  for (const auto& [channel, device] : checked->items()) {
    JP_TRY(std::string name, kAttributeOptions.value<std::string>(
                                 device, "channel_devices." + channel,
                                 [](const std::string& d) { return !d.empty(); },
                                 "is not a device name (cpu0, gpu0, …)"));
    out.channel_devices.emplace_back(channel, std::move(name));
  }
  return jouleprof::Status::Ok();
}

jouleprof::Status attribute_files(const char* samples_path, const char* trace_path,
                                  const char* output_profile_path, const char* options_json) {
  JP_TRY(const json options,
         capi::parse_options_json(options_json, kAttributeOptions,
                                  {"method", "classes", "idle_power_w", "window", "split_passes",
                                   "trace_offset_ns", "channel_devices", "meta", "calibration"}));
  jouleprof::RecordingFiles files;
  files.samples = samples_path;
  JP_TRY(files.meta, kAttributeOptions.get_or<std::string>(options, "meta", "", ""));
  JP_TRY(files.calibration, kAttributeOptions.get_or<std::string>(options, "calibration", "", ""));
  jouleprof::RecordingAttributionOptions attribution;
  if (trace_path != nullptr) attribution.trace_path = trace_path;
  JP_RETURN_IF_ERROR(read_names(options, attribution));
  JP_RETURN_IF_ERROR(read_idle_power(options, attribution));
  JP_RETURN_IF_ERROR(read_channel_devices(options, attribution));
  JP_TRY(attribution.split_passes,
         kAttributeOptions.get_or<bool>(options, "split_passes", "", true));
  JP_TRY(attribution.trace_offset_ns,
         kAttributeOptions.optional<jouleprof::TimeNs>(options, "trace_offset_ns", ""));
  JP_TRY(const jouleprof::AttributedRecording attributed,
         jouleprof::attribute_recording_files(files, std::move(attribution)));
  return jouleprof::write_profile_json(attributed.profile, output_profile_path);
}

}  // namespace

extern "C" jp_status jp_attribute(const char* samples_path, const char* trace_path,
                                  const char* output_profile_path, const char* options_json) {
  if (samples_path == nullptr || output_profile_path == nullptr) {
    return capi::fail(jouleprof::ErrorCode::kInvalidInput,
                      "jp_attribute: samples_path and output_profile_path must not be NULL");
  }
  try {
    const jouleprof::Status done =
        attribute_files(samples_path, trace_path, output_profile_path, options_json);
    return done ? JP_OK : capi::fail(done.error());
  } catch (...) {
    return capi::fail_from_exception(std::current_exception());
  }
}
