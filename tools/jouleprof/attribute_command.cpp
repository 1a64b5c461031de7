// `jouleprof attribute --trace TRACE --samples SAMPLES`: charge measured energy to the spans of a
// trace and print the profile's text view (top operators, tree); writes profile.json with
// --output.
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "attribution/kernel_classes.hpp"
#include "attribution/recording_inputs.hpp"
#include "attribution/trace_alignment.hpp"
#include "command.hpp"
#include "jouleprof/attribution.hpp"
#include "jouleprof/report.hpp"
#include "jouleprof/trace_attach.hpp"
#include "number_checks.hpp"
#include "text_view_flags.hpp"
#include "training/epoch_summary.hpp"

namespace jouleprof::cli {
namespace {

struct AttributeFlags {
  std::string trace;
  std::string samples;
  std::string method = "auto";
  std::string calibration;
  std::optional<double> idle_w;
  std::optional<TimeNs> offset_ns;
  std::vector<std::string> channel_devices;  // CHANNEL=DEVICE
  std::string meta;
  std::string classes = "name";
  TextViewFlags view;
  std::string format = "table";
  std::string output;
};

// What the library's clock and device errors leave to the command line: the flags that fix them.
constexpr const char* kClockFlagsHint =
    " (here: --offset-ns N, or --meta FILE with the recording's anchor_realtime_ns and "
    "anchor_monotonic_ns)";
constexpr const char* kDeviceFlagHint =
    "; --channel-device CHANNEL=DEVICE puts a channel on the device of the tracks that should "
    "consume it";

Status assign_channel_devices(const std::vector<std::string>& assignments,
                              std::vector<Series>& series) {
  for (const std::string& a : assignments) {
    const std::size_t eq = a.find('=');
    if (eq == std::string::npos || eq == 0) {
      return invalid_input("--channel-device", "CHANNEL=DEVICE", a,
                           "expected a channel id, '=' and a device (cpu0, gpu0, …)");
    }
    const std::string id = a.substr(0, eq);
    const auto it = std::find_if(series.begin(), series.end(),
                                 [&](const Series& s) { return s.channel().id == id; });
    if (it == series.end()) {
      std::string known;
      for (const Series& s : series) known += (known.empty() ? "" : ", ") + s.channel().id;
      return invalid_input("--channel-device", "CHANNEL", id,
                           "is not a channel of the samples (" + known + ")");
    }
    it->channel().device = a.substr(eq + 1);
  }
  return Status::Ok();
}

int run(const AttributeFlags& f) {
  const auto method = attribution_method_from_string(f.method);
  if (!method) {
    return report_error(
        invalid_input("--method", "method", f.method,
                      "expected auto, interpolate, hold, regress, calibrated or time-split"));
  }
  if (f.classes != "name" && f.classes != "kernel") {
    return report_error(
        invalid_input("--classes", "classes", f.classes, "expected name or kernel"));
  }
  attribution::RecordingMeta meta;
  if (!f.meta.empty()) {
    auto m = attribution::read_recording_meta(f.meta);
    if (!m) return report_error(m.error());
    meta = std::move(m).value();
  }
  auto samples = attribution::read_energy_samples(f.samples);
  if (!samples) return report_error(samples.error());
  // Said before the clock is matched, so that it does not come with the clock's flags.
  if (auto window = attribution::require_energy_readings(*samples, f.samples); !window) {
    return report_error(window.error());
  }
  if (Status s = assign_channel_devices(f.channel_devices, *samples); !s)
    return report_error(s.error());

  Profile profile;
  profile.meta.tool_version = JOULEPROF_VERSION;
  profile.meta.kind = "attribute";
  profile.meta.command = {"attribute", f.trace, f.samples};
  profile.series = std::move(samples).value();
  AttachTraceOptions attach;
  attach.offset_ns = f.offset_ns;
  attach.anchor = meta.anchor;
  attach.samples_origin = f.samples;
  if (meta.anchor) profile.meta.anchor = *meta.anchor;
  Result<AttachedTrace> attached = attach_trace(profile, f.trace, attach);
  if (!attached) {
    // A clock that does not fit the samples is fixed with flags of this command.
    const bool clock = attached.error().message().find("to fix it,") != std::string::npos;
    return report_error(Error(attached.error().code(),
                              attached.error().message() + (clock ? kClockFlagsHint : "")));
  }
  const std::string clock_mapping = attached->clock_mapping;
  const BackwardLinkStats backward = attached->backward;

  AttributionOptions options;
  options.default_method = *method;
  if (f.classes == "kernel")
    options.class_of = [](std::string_view name) { return attribution::kernel_class_of(name); };
  if (!meta.marks.empty()) {
    // The run's marks bound the window; they go into the timeline as instant events too.
    for (const auto& [name, t] : meta.marks)
      profile.timeline.add_mark(Mark{t, 0, profile.timeline.intern(name)});
    options.window_begin_ns = meta.marks.front().second;
    options.window_end_ns = meta.marks.back().second;
  }
  std::optional<Calibration> calibration;
  if (!f.calibration.empty()) {
    auto c = read_calibration_json(f.calibration);
    if (!c) return report_error(c.error());
    calibration = std::move(c).value();
  }
  for (const Series& s : profile.series) {
    if (!s.channel().carries_energy() || !s.channel().is_top_level()) continue;
    if (f.idle_w) options.idle_power_w[s.channel().id] = *f.idle_w;
    if (calibration && calibration->applies_to_device(s.channel().device)) {
      options.calibration_by_channel[s.channel().id] = *calibration;
    }
  }
  if (Status s = attribute_profile(profile, options); !s) return report_error(s.error());
  summarize_epochs(profile);
  if (Status s = attribution::check_energy_reached_spans(profile); !s) {
    return report_error(Error(s.error().code(), s.error().message() + kDeviceFlagHint));
  }

  std::string written;
  if (!f.output.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(f.output, ec);
    if (ec)
      return report_error(
          Error(ErrorCode::kIo, fmt::format("{}: cannot create: {}", f.output, ec.message())));
    const std::string path = (std::filesystem::path(f.output) / "profile.json").string();
    if (Status s = write_profile_json(profile, path); !s) return report_error(s.error());
    written = path;
  }
  if (f.format == "json") {
    std::cout << profile_to_json_string(profile, 1) << '\n';
    return kExitOk;
  }
  ReportOptions text_options;
  text_options.text = f.view.options_for(STDOUT_FILENO);
  text_options.text.channels = false;
  text_options.text.attribution_diagnostics = true;
  text_options.text.notes.push_back(fmt::format(
      "{} spans on {} tracks, {} channels; trace clock: {}", profile.timeline.spans().size(),
      profile.timeline.tracks().size(), profile.series.size(), clock_mapping));
  if (backward.nodes > 0) {
    text_options.text.notes.push_back(fmt::format(
        "backward pass: {:.3f} s in {} autograd nodes; under a module: {:.1f} %, not: {:.1f} %",
        ns_to_s(backward.backward_ns), backward.nodes, 100.0 * (1.0 - backward.unlinked_share()),
        100.0 * backward.unlinked_share()));
  }
  auto text = render_report("text", profile, text_options);
  if (!text) return report_error(text.error());
  std::cout << *text;
  if (!written.empty()) std::cout << "profile written to " << written << '\n';
  return kExitOk;
}

}  // namespace

CommandRunner add_attribute_command(CLI::App& parent) {
  auto flags = std::make_shared<AttributeFlags>();
  CLI::App* cmd = parent.add_subcommand(
      "attribute", "Charge measured energy to the spans of a trace and print the energy tree");
  cmd->add_option("--trace", flags->trace,
                  "Trace: PyTorch profiler / TensorFlow / Chrome trace JSON (.gz ok) or a "
                  "jouleprof span dump")
      ->required();
  cmd->add_option("--samples", flags->samples,
                  "Energy readings: jouleprof samples.csv, or an NVML poll log "
                  "(t_ns,instant_mw,…,energy_mj)")
      ->required();
  cmd->add_option(
         "--method", flags->method,
         "auto (per channel: interpolate fine counters; calibrated or regress coarse ones), "
         "interpolate (on counters refined below the update period by class powers fitted on "
         "its intervals), hold, regress, calibrated or time-split")
      ->capture_default_str();
  cmd->add_option("--calibration", flags->calibration,
                  "Calibration JSON: per-class power weights (docs/attribution.md)");
  cmd->add_option("--idle-w", flags->idle_w,
                  "Measured idle power (W) of each top-level channel: static/dynamic split")
      ->check(kNonNegativeNumber);
  cmd->add_option("--offset-ns", flags->offset_ns,
                  "Trace clock override: monotonic_ns = trace_ns + N (default: the trace's "
                  "jouleprof::clock_sync scope, else its realtime base through --meta's anchor "
                  "or this host's)");
  cmd->add_option("--channel-device", flags->channel_devices,
                  "CHANNEL=DEVICE: the device whose tracks consume CHANNEL (a channel that names "
                  "no device is consumed by every track); repeatable")
      ->type_name("CHANNEL=DEVICE");
  cmd->add_option(
      "--meta", flags->meta,
      "Recording metadata JSON (anchor_realtime_ns, anchor_monotonic_ns, marks): clock anchor, and "
      "the first and last mark bound the window");
  cmd->add_option("--classes", flags->classes,
                  "Span classes for regress/calibrated: name (last level of the span name) or "
                  "kernel (CUDA kernel classes)")
      ->capture_default_str();
  flags->view.add_to(*cmd);
  cmd->add_option("--format", flags->format, "table or json")
      ->check(CLI::IsMember({"table", "json"}))
      ->capture_default_str();
  cmd->add_option("--output", flags->output, "Directory to write profile.json into");
  return [flags] { return run(*flags); };
}

}  // namespace jouleprof::cli
