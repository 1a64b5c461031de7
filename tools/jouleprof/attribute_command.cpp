// `jouleprof attribute --samples SAMPLES [--trace TRACE]`: the library's attribute_recording_files
// (jouleprof/recording_attribution.hpp) from flags, and the profile's text view (top operators,
// tree) or JSON; writes profile.json with --output.
#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>
#include <iostream>

#include "command.hpp"
#include "jouleprof/recording_attribution.hpp"
#include "jouleprof/report.hpp"
#include "number_checks.hpp"
#include "output_format.hpp"
#include "text_view_flags.hpp"

namespace jouleprof::cli {
namespace {

struct AttributeFlags {
  RecordingFiles files;
  RecordingAttributionOptions options;
  std::string method = "auto";
  std::optional<double> idle_w;
  std::vector<std::string> channel_devices;  // CHANNEL=DEVICE
  std::string classes = "name";
  std::string window = "run";
  TextViewFlags view;
  OutputFormat format = OutputFormat::kTable;
  std::string output;
};

// What the library's clock and device errors leave to the command line: the flags that fix them.
constexpr const char* kClockFlagsHint =
    " (here: --offset-ns N, or --meta FILE with the recording's anchor_realtime_ns and "
    "anchor_monotonic_ns)";
constexpr const char* kDeviceFlagHint =
    "; --channel-device CHANNEL=DEVICE puts a channel on the device of the tracks that should "
    "consume it";

Result<RecordingAttributionOptions> options_from_flags(const AttributeFlags& f) {
  RecordingAttributionOptions options = f.options;
  const auto method = attribution_method_from_string(f.method);
  if (!method) {
    return invalid_input("--method", "method", f.method,
                         "expected auto, interpolate, hold, regress, calibrated or time-split");
  }
  options.method = *method;
  const auto classes = span_classes_from_string(f.classes);
  if (!classes) return invalid_input("--classes", "classes", f.classes, "expected name or kernel");
  options.classes = *classes;
  options.idle_power_w = f.idle_w;
  options.window = attribution_window_from_string(f.window).value_or(AttributionWindow::kRun);
  for (const std::string& a : f.channel_devices) {
    const std::size_t eq = a.find('=');
    if (eq == std::string::npos || eq == 0) {
      return invalid_input("--channel-device", "CHANNEL=DEVICE", a,
                           "expected a channel id, '=' and a device (cpu0, gpu0, …)");
    }
    options.channel_devices.emplace_back(a.substr(0, eq), a.substr(eq + 1));
  }
  return options;
}

// The library's error, with the flags of this command that fix it.
int report_attribution_error(const Error& e) {
  switch (e.subject()) {
    case ErrorSubject::kTraceClock:
      return report_error(Error(e.code(), e.message() + kClockFlagsHint, e.subject()));
    case ErrorSubject::kChannelDevices:
      return report_error(Error(e.code(), e.message() + kDeviceFlagHint, e.subject()));
    case ErrorSubject::kUnspecified:
    case ErrorSubject::kNoSpans:
    case ErrorSubject::kCommandStart:
    case ErrorSubject::kNotAProfile:
      break;
  }
  return report_error(e);
}

int run(const AttributeFlags& f) {
  const Result<RecordingAttributionOptions> options = options_from_flags(f);
  if (!options) return report_error(options.error());
  Result<AttributedRecording> attributed = attribute_recording_files(f.files, *options);
  if (!attributed) return report_attribution_error(attributed.error());
  const Profile& profile = attributed->profile;

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
  if (f.format == OutputFormat::kJson) {
    std::cout << profile_to_json_string(profile, 1) << '\n';
    return kExitOk;
  }
  ReportOptions text_options;
  text_options.text = f.view.options_for(STDOUT_FILENO);
  text_options.text.channels = false;
  text_options.text.attribution_diagnostics = true;
  text_options.text.notes.push_back(fmt::format(
      "{} spans on {} tracks, {} channels; trace clock: {}", profile.timeline.spans().size(),
      profile.timeline.tracks().size(), profile.series.size(), attributed->found.clock_mapping));
  const BackwardLinkStats& backward = attributed->found.backward;
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
  cmd->add_option("--trace", flags->options.trace_path,
                  "Trace: PyTorch profiler / TensorFlow / Chrome trace JSON (.gz ok) or a "
                  "jouleprof span dump (default: the spans of a --samples profile)");
  cmd->add_option(
         "--samples", flags->files.samples,
         "Energy readings: a profile.json (jouleprof run, jp_monitor_stop: its series, run "
         "window and clock anchor), a jouleprof samples.csv, or an NVML poll log "
         "(t_ns,instant_mw,…,energy_mj)")
      ->required();
  cmd->add_option(
         "--method", flags->method,
         "auto (per channel, the smallest expected error of: interpolate refined with the "
         "calibration against calibrated when --calibration is given; regress against "
         "interpolate on coarse counters; else interpolate), "
         "interpolate (on counters refined below the update period by class powers fitted on "
         "its intervals), hold, regress, calibrated or time-split")
      ->capture_default_str();
  cmd->add_option("--calibration", flags->files.calibration,
                  "Calibration JSON: per-class power weights (docs/attribution.md)");
  cmd->add_option("--idle-w", flags->idle_w,
                  "Measured idle power (W) of each top-level channel: static/dynamic split (above "
                  "a channel's mean power it is a warning, and that channel's idle power is its "
                  "mean)")
      ->check(figure_of(FigureKind::kDevicePower, true));
  cmd->add_option("--offset-ns", flags->options.trace_offset_ns,
                  "Trace clock override: monotonic_ns = trace_ns + N (default: the trace's "
                  "jouleprof::clock_sync scope, else its realtime base through --meta's anchor "
                  "or this host's)");
  cmd->add_option("--channel-device", flags->channel_devices,
                  "CHANNEL=DEVICE: the device whose tracks consume CHANNEL (a channel that names "
                  "no device is consumed by every track); repeatable")
      ->type_name("CHANNEL=DEVICE");
  cmd->add_option(
      "--meta", flags->files.meta,
      "Recording metadata JSON (anchor_realtime_ns, anchor_monotonic_ns, marks): clock anchor, and "
      "the first and last mark bound the window");
  cmd->add_option("--classes", flags->classes,
                  "Span classes for regress/calibrated: name (last level of the span name) or "
                  "kernel (CUDA kernel classes)")
      ->capture_default_str();
  cmd->add_option("--window", flags->window,
                  "run (the first and last --meta mark, else the profile's run window, else the "
                  "spans' extent: the tree sums to what was measured there) or timeline (the "
                  "spans' extent)")
      ->check(CLI::IsMember({"run", "timeline"}))
      ->capture_default_str();
  flags->view.add_to(*cmd);
  add_format_option(*cmd, flags->format, {OutputFormat::kTable, OutputFormat::kJson},
                    "table or json");
  cmd->add_option("--output", flags->output, "Directory to write profile.json into");
  return [flags] { return run(*flags); };
}

}  // namespace jouleprof::cli
