// The attribution section of the C API: jp_attribute's options JSON read into the library's
// attribute_recording_files, whose profile it writes.
#include <exception>
#include <optional>
#include <string>

#include "capi/json_options.hpp"
#include "capi/last_error.hpp"
#include "core/json_brief.hpp"
#include "jouleprof/jouleprof.h"
#include "jouleprof/recording_attribution.hpp"

namespace {

namespace capi = jouleprof::capi;
using jouleprof::invalid_input;

constexpr std::string_view kCall = "jp_attribute";

jouleprof::Status read_method(const nlohmann::json& options,
                              jouleprof::RecordingAttributionOptions& out) {
  const auto it = options.find("method");
  if (it == options.end()) return jouleprof::Status::Ok();
  const std::optional<jouleprof::AttributionMethod> method =
      it->is_string() ? jouleprof::attribution_method_from_string(it->get<std::string>())
                      : std::nullopt;
  if (!method) {
    return invalid_input(kCall, "method", it->dump(),
                         "must be auto, interpolate, hold, regress, calibrated or time-split");
  }
  out.method = *method;
  return jouleprof::Status::Ok();
}

jouleprof::Status read_classes_and_window(const nlohmann::json& options,
                                          jouleprof::RecordingAttributionOptions& out) {
  if (const auto it = options.find("classes"); it != options.end()) {
    const auto classes = it->is_string()
                             ? jouleprof::span_classes_from_string(it->get<std::string>())
                             : std::nullopt;
    if (!classes) return invalid_input(kCall, "classes", it->dump(), "must be name or kernel");
    out.classes = *classes;
  }
  if (const auto it = options.find("window"); it != options.end()) {
    const auto window = it->is_string()
                            ? jouleprof::attribution_window_from_string(it->get<std::string>())
                            : std::nullopt;
    if (!window)
      return invalid_input(kCall, "window", it->dump(), "must be \"run\" or \"timeline\"");
    out.window = *window;
  }
  return jouleprof::Status::Ok();
}

jouleprof::Status read_idle_power(const nlohmann::json& options,
                                  jouleprof::RecordingAttributionOptions& out) {
  const auto it = options.find("idle_power_w");
  if (it == options.end()) return jouleprof::Status::Ok();
  if (it->is_number() && it->get<double>() >= 0.0) {
    out.idle_power_w = it->get<double>();
    return jouleprof::Status::Ok();
  }
  if (!it->is_object()) {
    return invalid_input(kCall, "idle_power_w", it->dump(),
                         "must be a non-negative number of watts or an object of them");
  }
  for (const auto& [channel, watts] : it->items()) {
    if (!watts.is_number() || watts.get<double>() < 0.0) {
      return invalid_input(kCall, "idle_power_w." + channel, jouleprof::json_brief(watts),
                           "must be a non-negative number of watts");
    }
    out.idle_power_w_by_channel[channel] = watts.get<double>();
  }
  return jouleprof::Status::Ok();
}

jouleprof::Status read_channel_devices(const nlohmann::json& options,
                                       jouleprof::RecordingAttributionOptions& out) {
  const auto it = options.find("channel_devices");
  if (it == options.end()) return jouleprof::Status::Ok();
  if (!it->is_object()) {
    return invalid_input(kCall, "channel_devices", jouleprof::json_brief(*it),
                         "must be an object of channel id → device");
  }
  for (const auto& [channel, device] : it->items()) {
    if (!device.is_string() || device.get<std::string>().empty()) {
      return invalid_input(kCall, "channel_devices." + channel, jouleprof::json_brief(device),
                           "must be a device name (cpu0, gpu0, …)");
    }
    out.channel_devices.emplace_back(channel, device.get<std::string>());
  }
  return jouleprof::Status::Ok();
}

jouleprof::Status attribute_files(const char* samples_path, const char* trace_path,
                                  const char* output_profile_path, const char* options_json) {
  JP_TRY(const nlohmann::json options,
         capi::parse_options_json(options_json, kCall,
                                  {"method", "classes", "idle_power_w", "window", "split_passes",
                                   "trace_offset_ns", "channel_devices", "meta", "calibration"}));
  jouleprof::RecordingFiles files;
  files.samples = samples_path;
  JP_TRY(files.meta, capi::option_string(options, kCall, "meta", ""));
  JP_TRY(files.calibration, capi::option_string(options, kCall, "calibration", ""));
  jouleprof::RecordingAttributionOptions attribution;
  if (trace_path != nullptr) attribution.trace_path = trace_path;
  JP_RETURN_IF_ERROR(read_method(options, attribution));
  JP_RETURN_IF_ERROR(read_classes_and_window(options, attribution));
  JP_RETURN_IF_ERROR(read_idle_power(options, attribution));
  JP_RETURN_IF_ERROR(read_channel_devices(options, attribution));
  JP_TRY(attribution.split_passes, capi::option_bool(options, kCall, "split_passes", true));
  if (const auto it = options.find("trace_offset_ns"); it != options.end()) {
    if (!it->is_number_integer())
      return invalid_input(kCall, "trace_offset_ns", it->dump(), "must be an integer (ns)");
    attribution.trace_offset_ns = it->get<jouleprof::TimeNs>();
  }
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
