#include "jouleprof/recording_attribution.hpp"

#include <algorithm>

#include "attribution/kernel_classes.hpp"
#include "attribution/recording_inputs.hpp"
#include "attribution/trace_alignment.hpp"
#include "jouleprof/attribution.hpp"
#include "jouleprof/epoch_summary.hpp"
#include "jouleprof/trace_attach.hpp"

namespace jouleprof {

std::string_view to_string(SpanClasses classes) {
  return classes == SpanClasses::kKernel ? "kernel" : "name";
}

std::optional<SpanClasses> span_classes_from_string(std::string_view text) {
  if (text == "name") return SpanClasses::kName;
  if (text == "kernel") return SpanClasses::kKernel;
  return std::nullopt;
}

namespace {

// Every id is checked before any channel moves.
Status assign_channel_devices(const std::vector<std::pair<std::string, std::string>>& assignments,
                              std::vector<Series>& series) {
  std::vector<Series*> assigned;
  for (const auto& assignment : assignments) {
    const std::string& id = assignment.first;
    const auto it = std::find_if(series.begin(), series.end(),
                                 [&](const Series& s) { return s.channel().id == id; });
    if (it == series.end()) {
      std::string known;
      for (const Series& s : series) known += (known.empty() ? "" : ", ") + s.channel().id;
      return invalid_input("channel devices", "CHANNEL", id,
                           "is not a channel of the samples (" + known + ")");
    }
    assigned.push_back(&*it);
  }
  for (std::size_t i = 0; i < assigned.size(); ++i)
    assigned[i]->channel().device = assignments[i].second;
  return Status::Ok();
}

AttributionOptions attribution_options(const Profile& profile,
                                       const RecordingAttributionOptions& options) {
  AttributionOptions out;
  out.default_method = options.method;
  out.split_passes = options.split_passes;
  if (options.classes == SpanClasses::kKernel)
    out.class_of = [](std::string_view name) { return attribution::kernel_class_of(name); };
  for (const Series& s : profile.series) {
    if (!s.channel().carries_energy() || !s.channel().is_top_level()) continue;
    if (options.idle_power_w) out.idle_power_w[s.channel().id] = *options.idle_power_w;
    if (options.calibration && options.calibration->applies_to_device(s.channel().device))
      out.calibration_by_channel[s.channel().id] = *options.calibration;
  }
  for (const auto& [channel, watts] : options.idle_power_w_by_channel)
    out.idle_power_w[channel] = watts;
  if (options.window == AttributionWindow::kTimeline) {
    const auto [begin_ns, end_ns] = profile.timeline.extent();
    out.window_begin_ns = begin_ns;
    out.window_end_ns = end_ns;
  } else if (!options.marks.empty()) {
    // The marks' span, whatever their order in the file (marks written last-to-first, or by
    // several threads, bound the same window).
    const auto [first, last] =
        std::minmax_element(options.marks.begin(), options.marks.end(),
                            [](const auto& a, const auto& b) { return a.second < b.second; });
    // One instant is no window: the run's or the spans' is taken instead.
    if (first->second < last->second) {
      out.window_begin_ns = first->second;
      out.window_end_ns = last->second;
    }
  }
  // Otherwise attribute_profile takes the profile's run window, else the spans' extent.
  return out;
}

}  // namespace

Result<RecordingAttribution> attribute_recording(Profile& profile,
                                                 const RecordingAttributionOptions& options) {
  RecordingAttribution found;
  const std::string samples_origin =
      options.samples_origin.empty() ? "the profile's samples" : options.samples_origin;
  // Said before the clock is matched, so that it does not come with the clock's remedies.
  JP_RETURN_IF_ERROR(attribution::require_energy_readings(profile.series, samples_origin));
  JP_RETURN_IF_ERROR(assign_channel_devices(options.channel_devices, profile.series));
  if (options.anchor) profile.meta.anchor = *options.anchor;
  if (!options.trace_path.empty()) {
    AttachTraceOptions attach;
    attach.offset_ns = options.trace_offset_ns;
    attach.anchor = options.anchor;
    attach.samples_origin = samples_origin;
    JP_TRY(AttachedTrace attached, attach_trace(profile, options.trace_path, attach));
    found.clock_mapping = std::move(attached.clock_mapping);
    found.backward = attached.backward;
  }
  if (profile.timeline.spans().empty()) {
    return Error(ErrorCode::kInvalidInput,
                 invalid_input(options.trace_path.empty() ? samples_origin : options.trace_path,
                               "spans", "0", "empty: no spans to attribute to")
                     .message(),
                 ErrorSubject::kNoSpans);
  }
  for (const auto& [name, t] : options.marks)
    profile.timeline.add_mark(Mark{t, 0, profile.timeline.intern(name)});
  JP_RETURN_IF_ERROR(attribute_profile(profile, attribution_options(profile, options)));
  profile.meta.options.attribution.window = options.window;
  summarize_epochs(profile);
  JP_RETURN_IF_ERROR(attribution::check_energy_reached_spans(profile));
  return found;
}

Result<AttributedRecording> attribute_recording_files(const RecordingFiles& files,
                                                      RecordingAttributionOptions options) {
  if (!files.meta.empty()) {
    JP_TRY(attribution::RecordingMeta meta, attribution::read_recording_meta(files.meta));
    if (meta.anchor) options.anchor = meta.anchor;
    options.marks = std::move(meta.marks);
  }
  Profile recording;
  if (files.samples.size() > 5 && files.samples.ends_with(".json")) {
    JP_TRY(recording, read_profile_json(files.samples));
  } else {
    JP_TRY(recording.series, attribution::read_energy_samples(files.samples, &recording.warnings));
    recording.meta.tool_version = JOULEPROF_VERSION;
    recording.meta.command = {"attribute", options.trace_path, files.samples};
  }
  if (!files.calibration.empty()) {
    JP_TRY(options.calibration, read_calibration_json(files.calibration));
  }
  recording.meta.kind = "attribute";
  if (options.samples_origin.empty()) options.samples_origin = files.samples;
  JP_TRY(RecordingAttribution found, attribute_recording(recording, options));
  return AttributedRecording{std::move(recording), std::move(found)};
}

}  // namespace jouleprof
