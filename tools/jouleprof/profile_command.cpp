// jouleprof profile --model NAME: runs a zoo model, prints the profile's text view (headline, top
// operators, per-layer tree), writes the profile (and with --calibrate, the calibration it
// measured and used).
#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>
#include <iostream>

#include "command.hpp"
#include "core/quantity_text.hpp"
#include "jouleprof/attribution.hpp"
#include "jouleprof/monitor.hpp"
#include "jouleprof/report.hpp"
#include "jouleprof/torch_profile.hpp"
#include "output_format.hpp"
#include "text_view_flags.hpp"
#include "torch_commands.hpp"
#include "torch_options.hpp"

namespace jouleprof::cli {
namespace {

namespace jt = torch_adapter;

struct ProfileCommand {
  TorchCommandOptions run;
  std::string output = "jouleprof-profile";
  OutputFormat format = OutputFormat::kTable;
  std::string calibration_file;
  std::string method = "auto";
  bool calibrate = false;
  CalibrationFlags calibration;
  bool list_models = false;
  TextViewFlags view;
};

int list_models() {
  for (const jt::ZooModel& m : jt::zoo_models())
    std::cout << fmt::format("{:<16} {}\n", m.name, m.description);
  return kExitOk;
}

// Measures each op class of the profiled step alone (calibrate) through the gated protocol and
// writes the calibration file.
Result<Calibration> measure_calibration(const jt::TorchProfile& profiled, const ProfileCommand& c,
                                        const std::string& path, bool& interrupted) {
  JP_TRY(jt::CalibrationOptions options, calibration_options(c.calibration, c.run.workload.device));
  JP_TRY(SourceOptions source_options, c.run.source_flags.to_options());
  MonitorOptions monitor_options;
  monitor_options.sources = source_options;
  JP_TRY(Calibration calibration,
         run_calibration(profiled.captured, jt::op_self_times(profiled.profile.timeline),
                         c.calibration, options, monitor_options, interrupted));
  calibration.model = c.run.workload.model;
  JP_RETURN_IF_ERROR(write_calibration_json(calibration, path));
  return calibration;
}

int run_profile(ProfileCommand& c) {
  if (c.list_models) return list_models();
  if (Status s = resolve_mode(c.run); !s.ok()) return report_error(s.error());
  const auto method = attribution_method_from_string(c.method);
  if (!method) {
    return report_error(
        invalid_input("command line", "--method", c.method,
                      "must be auto, interpolate, hold, regress, calibrated or time-split"));
  }
  auto workload = jt::make_workload(c.run.workload);
  if (!workload.ok()) return report_error(workload.error());

  jt::TorchProfileOptions options;
  options.attribution.default_method = *method;
  options.steps = c.run.steps;
  options.warmup = c.run.warmup;
  options.idle_ns = s_to_ns(c.run.idle_s);
  options.record_shapes = c.calibrate;
  auto sources = c.run.source_flags.to_options();
  if (!sources.ok()) return report_error(sources.error());
  options.monitor.sources = *sources;
  if (!c.calibration_file.empty()) {
    auto calibration = read_calibration_json(c.calibration_file);
    if (!calibration.ok()) return report_error(calibration.error());
    options.calibration = *calibration;
  }
  std::error_code ec;
  std::filesystem::create_directories(c.output, ec);
  if (ec) return report_error(Error(ErrorCode::kIo, c.output + ": cannot create: " + ec.message()));

  auto profiled = jt::profile_workload(**workload, options);
  if (!profiled.ok()) return report_error(profiled.error());
  if (c.calibrate) {
    // Measure the classes this step really ran, then attribute again with those weights.
    const std::string path = (std::filesystem::path(c.output) / "calibration.json").string();
    bool interrupted = false;
    auto measured = measure_calibration(*profiled, c, path, interrupted);
    if (!measured.ok()) return report_error(measured.error());
    if (c.format != OutputFormat::kJson || interrupted) print_calibration(*measured, path);
    if (interrupted) {
      std::cerr << "jouleprof: stopped during the calibration; the classes measured are in " << path
                << ", the profile was not taken again with them\n";
      return kExitInterrupted;
    }
    auto calibration = read_calibration_json(path);
    if (!calibration.ok()) return report_error(calibration.error());
    options.calibration = *calibration;
    options.record_shapes = false;
    profiled = jt::profile_workload(**workload, options);
    if (!profiled.ok()) return report_error(profiled.error());
  }
  const Profile& profile = profiled->profile;
  const std::string profile_path = (std::filesystem::path(c.output) / "profile.json").string();
  if (Status s = write_profile_json(profile, profile_path); !s.ok()) return report_error(s.error());

  if (c.format == OutputFormat::kJson) {
    std::cout << profile_to_json_string(profile, 2) << '\n';
    return kExitOk;
  }
  // The headline says "estimated" when no counter was readable, and the warning why, once.
  ReportOptions text_options;
  text_options.text = c.view.options_for(STDOUT_FILENO);
  text_options.text.channels = false;
  const double energy_j = profile.total_energy_j();
  const auto per = [energy_j](double n) { return format_energy(n > 0 ? energy_j / n : 0.0); };
  // The energy of a step, with its interval, is the text view's "energy per step" line.
  text_options.text.notes.push_back(
      profile.energy_per_step ? fmt::format("{} steps: {} a step, {} a sample", c.run.steps,
                                            format_duration(profiled->step_time_ns),
                                            per(static_cast<double>(profiled->samples)))
                              : fmt::format("{} steps: {} and {} a step, {} a sample", c.run.steps,
                                            format_duration(profiled->step_time_ns),
                                            per(static_cast<double>(c.run.steps)),
                                            per(static_cast<double>(profiled->samples))));
  auto text = render_report("text", profile, text_options);
  if (!text.ok()) return report_error(text.error());
  std::cout << *text;
  std::cout << "profile written to " << profile_path << '\n';
  return kExitOk;
}

}  // namespace

CommandRunner add_profile_command(CLI::App& parent) {
  auto c = std::make_shared<ProfileCommand>();
  CLI::App* command = parent.add_subcommand(std::string(kProfileCommand.name),
                                            std::string(kProfileCommand.description));
  command->add_option("--model", c->run.workload.model, "Zoo model (--list-models)")
      ->capture_default_str();
  command->add_flag("--list-models", c->list_models, "List the zoo's models and exit");
  command->add_option("--layers", c->run.workload.layers,
                      "BERT/ALBERT layers, MLP depth (default: the preset's)");
  command->add_option("--hidden", c->run.workload.hidden,
                      "BERT/ALBERT hidden size, MLP/VGG classifier width");
  command->add_option("--heads", c->run.workload.heads,
                      "BERT/ALBERT attention heads (default: hidden / 64)");
  add_torch_run_options(*command, c->run);
  command->add_option("--output", c->output, "Directory for profile.json (and calibration.json)")
      ->capture_default_str();
  add_format_option(*command, c->format, {OutputFormat::kTable, OutputFormat::kJson},
                    "table (tree and top operators) or json (the profile)");
  c->view.add_to(*command);
  command->add_flag(
      "--calibrate", c->calibrate,
      "Replay each op class alone to measure its power, then attribute with those weights");
  add_calibration_options(*command, c->calibration);
  command->add_option("--calibration", c->calibration_file,
                      "Attribute with the weights of this calibration file");
  command
      ->add_option("--method", c->method,
                   "Attribution method for every channel: auto, interpolate, hold, regress, "
                   "calibrated, time-split")
      ->capture_default_str();
  return [c] { return run_profile(*c); };
}

}  // namespace jouleprof::cli
