// The `attribute` job: a recording's energy readings charged to its spans (its own, or those of a
// trace recorded beside it), as one library call. `jouleprof attribute`, the C API's jp_attribute
// (and so Python's jouleprof.attribute and Monitor.attribute_trace) and jp_monitor_stop are
// front-ends of it: they parse their arguments into these options and render the result, so the
// same recording gives the same profile through each of them.
//
//   jouleprof::RecordingFiles files;
//   files.samples = "run/profile.json";          // or samples.csv, or an NVML poll log
//   files.trace = "trace.json";                   // torch.profiler, any Chrome trace, a span dump
//   jouleprof::RecordingAttributionOptions options;
//   options.method = jouleprof::AttributionMethod::kCalibrated;
//   JP_TRY(jouleprof::AttributedRecording done, jouleprof::attribute_recording_files(files,
//   options)); JP_RETURN_IF_ERROR(jouleprof::write_profile_json(done.profile, "attributed.json"));
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "jouleprof/attribution_method.hpp"
#include "jouleprof/attribution_window.hpp"
#include "jouleprof/calibration.hpp"
#include "jouleprof/clock.hpp"
#include "jouleprof/profile.hpp"
#include "jouleprof/result.hpp"
#include "jouleprof/trace_import.hpp"

namespace jouleprof {

// What regress and calibrated take as a span's class.
enum class SpanClasses : std::uint8_t {
  kName,    // the last level of the span's name
  kKernel,  // CUDA kernel classes (gemm, conv, elementwise, …: docs/attribution.md)
};
std::string_view to_string(SpanClasses classes);
std::optional<SpanClasses> span_classes_from_string(std::string_view text);

struct RecordingAttributionOptions {
  // Spans: a trace file (every format import_trace reads, span dumps included); empty: the
  // profile's own timeline.
  std::string trace_path;
  // monotonic_ns = trace_ns + this, overriding the trace's own clock mapping.
  std::optional<TimeNs> trace_offset_ns;
  // The recording's clock pair, for a trace on the realtime clock (default: the profile's run
  // anchor when it has one, else this host's).
  std::optional<ClockAnchor> anchor;
  // The recording's marks (name, CLOCK_MONOTONIC ns): added to the timeline; the first and last
  // bound the run window.
  std::vector<std::pair<std::string, TimeNs>> marks;

  AttributionMethod method = AttributionMethod::kAuto;
  SpanClasses classes = SpanClasses::kName;
  // Per-class power weights, for every top-level channel on a device they apply to.
  std::optional<Calibration> calibration;
  // Measured idle power: of every top-level energy channel, and per channel id (which wins).
  std::optional<double> idle_power_w;
  std::map<std::string, double> idle_power_w_by_channel;
  // (channel id, device): the device whose tracks consume the channel.
  std::vector<std::pair<std::string, std::string>> channel_devices;
  AttributionWindow window = AttributionWindow::kRun;
  bool split_passes = true;  // [forward]/[backward]/[optimizer] nodes
  // Names the samples in messages; default: "the profile's samples" (the file version: the
  // samples file).
  std::string samples_origin;
};

// What the attribution found besides the profile, for a caller that shows it.
struct RecordingAttribution {
  std::string clock_mapping;  // how the trace's clock was mapped; "" without a trace
  BackwardLinkStats backward;
};

// Attributes `profile` (its series, run window and anchor; its own spans unless
// options.trace_path names a trace) in place: tree, per-channel records, epochs, warnings.
// Errors (invalid input; the profile's measurement — series, channel summaries, run window — is
// kept, its timeline may hold the trace): a trace that cannot be read or whose clock does not
// fit the samples (ErrorSubject::kTraceClock), an unknown channel in channel_devices, no spans
// (ErrorSubject::kNoSpans), and an attribution in which no span received energy
// (ErrorSubject::kChannelDevices when the tracks and the channels are on different devices).
Result<RecordingAttribution> attribute_recording(Profile& profile,
                                                 const RecordingAttributionOptions& options);

struct AttributedRecording {
  Profile profile;
  RecordingAttribution found;
};

// A recording on disk.
struct RecordingFiles {
  // Energy readings: a profile.json (its series, run window, anchor and spans), a jouleprof
  // samples.csv or an NVML poll log (t_ns,instant_mw,…,energy_mj).
  std::string samples;
  // Recording metadata JSON (anchor_realtime_ns, anchor_monotonic_ns, marks): "" for none. Its
  // anchor and marks go into the options.
  std::string meta;
  // A calibration JSON (docs/attribution.md): "" for none; it sets options.calibration.
  std::string calibration;
};

// Reads the files, then attribute_recording: the `attribute` job (meta.kind "attribute"). A
// profile made from a samples file records the command as {"attribute", trace, samples}.
Result<AttributedRecording> attribute_recording_files(const RecordingFiles& files,
                                                      RecordingAttributionOptions options);

}  // namespace jouleprof
