// `jouleprof attribute --trace TRACE --samples SAMPLES`: charge measured energy to the spans of a
// trace and print the tree and the top operators; writes profile.json with --output.
#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <iostream>

#include "attribution/kernel_classes.hpp"
#include "attribution/recording_inputs.hpp"
#include "command.hpp"
#include "jouleprof/attribution.hpp"
#include "jouleprof/trace_import.hpp"
#include "number_checks.hpp"
#include "report/text_tree.hpp"

namespace jouleprof::cli {
namespace {

struct AttributeFlags {
  std::string trace;
  std::string samples;
  std::string method = "auto";
  std::string calibration;
  std::optional<double> idle_w;
  std::optional<TimeNs> offset_ns;
  std::string meta;
  std::string classes = "name";
  int depth = 4;
  std::size_t top = 10;
  std::string format = "table";
  std::string output;
};

void print_records(const Profile& p) {
  for (const AttributionRecord& r : p.attribution) {
    std::cout << fmt::format("channel {}: method {} — {}\n", r.channel_id, r.method, r.reason);
    std::string diag;
    for (const auto& [key, value] : r.diagnostics) {
      if (key.rfind("power_w:", 0) == 0 || key.rfind("se_w:", 0) == 0)
        continue;  // per class: in JSON
      diag += fmt::format("{}{}={:.4g}", diag.empty() ? "" : ", ", key, value);
    }
    if (!diag.empty()) std::cout << "  diagnostics: " << diag << '\n';
    for (const std::string& n : r.notes) std::cout << "  note: " << n << '\n';
  }
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
  TraceImportOptions import_options;
  import_options.offset_ns = f.offset_ns;
  attribution::RecordingMeta meta;
  if (!f.meta.empty()) {
    auto m = attribution::read_recording_meta(f.meta);
    if (!m) return report_error(m.error());
    meta = std::move(m).value();
    import_options.anchor = meta.anchor;
  }
  auto imported = import_trace(f.trace, import_options);
  if (!imported) return report_error(imported.error());
  auto samples = attribution::read_energy_samples(f.samples);
  if (!samples) return report_error(samples.error());

  Profile profile;
  profile.meta.tool_version = JOULEPROF_VERSION;
  profile.meta.kind = "attribute";
  profile.meta.command = {"attribute", f.trace, f.samples};
  profile.meta.options["trace.clock_mapping"] = imported->clock_mapping;
  profile.meta.options["trace.offset_ns"] = std::to_string(imported->offset_ns);
  if (meta.anchor) profile.meta.anchor = *meta.anchor;
  profile.timeline = std::move(imported->timeline);
  for (const std::string& w : imported->warnings) profile.warnings.push_back(w);
  profile.series = std::move(samples).value();

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

  if (!f.output.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(f.output, ec);
    if (ec)
      return report_error(
          Error(ErrorCode::kIo, fmt::format("{}: cannot create: {}", f.output, ec.message())));
    const std::string path = (std::filesystem::path(f.output) / "profile.json").string();
    if (Status s = write_profile_json(profile, path); !s) return report_error(s.error());
    if (f.format == "table") std::cout << "wrote " << path << '\n';
  }
  if (f.format == "json") {
    std::cout << profile_to_json_string(profile, 1) << '\n';
    return kExitOk;
  }
  std::cout << fmt::format(
      "jouleprof attribute: {} spans on {} tracks, {} channels; trace clock: {}\n",
      profile.timeline.spans().size(), profile.timeline.tracks().size(), profile.series.size(),
      imported->clock_mapping);
  print_records(profile);
  for (const std::string& w : profile.warnings) std::cout << "warning: " << w << '\n';
  std::cout << '\n'
            << report::format_profile_tree(*profile.tree,
                                           report::TextTreeOptions{f.depth, 0.0, 12});
  std::vector<std::vector<std::string>> rows;
  for (const OperatorTotal& op : top_operators(*profile.tree, f.top)) {
    rows.push_back({op.name, fmt::format("{:.4g}", op.energy_j),
                    fmt::format("{:.1f}%", 100.0 * op.energy_j / profile.tree->energy_j),
                    fmt::format("{:.3f}", static_cast<double>(op.time_ns) / 1e6),
                    std::to_string(op.calls)});
  }
  std::cout << "\ntop operators (self energy, indices collapsed)\n"
            << report::format_text_table({"operator", "energy J", "share", "time ms", "calls"},
                                         rows);
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
                  "Trace clock override: monotonic_ns = trace_ns + N");
  cmd->add_option(
      "--meta", flags->meta,
      "Recording metadata JSON (anchor_realtime_ns, anchor_monotonic_ns, marks): clock anchor, and "
      "the first and last mark bound the window");
  cmd->add_option("--classes", flags->classes,
                  "Span classes for regress/calibrated: name (last level of the span name) or "
                  "kernel (CUDA kernel classes)")
      ->capture_default_str();
  cmd->add_option("--depth", flags->depth, "Tree levels to print")->capture_default_str();
  cmd->add_option("--top", flags->top, "Top operators to list")->capture_default_str();
  cmd->add_option("--format", flags->format, "table or json")
      ->check(CLI::IsMember({"table", "json"}))
      ->capture_default_str();
  cmd->add_option("--output", flags->output, "Directory to write profile.json into");
  return [flags] { return run(*flags); };
}

}  // namespace jouleprof::cli
