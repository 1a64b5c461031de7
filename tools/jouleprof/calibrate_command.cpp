// jouleprof calibrate --model NAME: records the op classes (with their shapes and self times) of a
// few steps of a zoo model, replays each class alone through the gated protocol, the classes with
// the most time first, and writes the per-class power as a calibration file.
#include <fmt/format.h>

#include <iostream>

#include "command.hpp"
#include "jouleprof/monitor.hpp"
#include "jouleprof/recorder.hpp"
#include "jouleprof/torch.hpp"
#include "torch_commands.hpp"
#include "torch_options.hpp"

namespace jouleprof::cli {
namespace {

namespace jt = torch_adapter;

struct CalibrateCommand {
  TorchCommandOptions run;
  std::string output = "calibration.json";
  CalibrationFlags calibration;
};

int run_calibrate(CalibrateCommand& c) {
  if (Status s = resolve_mode(c.run); !s.ok()) return report_error(s.error());
  auto options = calibration_options(c.calibration, c.run.workload.device);
  if (!options.ok()) return report_error(options.error());
  auto workload = jt::make_workload(c.run.workload);
  if (!workload.ok()) return report_error(workload.error());
  auto source_options = c.run.source_flags.to_options();
  if (!source_options.ok()) return report_error(source_options.error());
  MonitorOptions monitor_options;
  monitor_options.sources = *source_options;

  const TimeNs began = monotonic_now_ns();
  for (int i = 0; i < c.run.warmup; ++i) (*workload)->step();
  jt::ObserverOptions observer_options;
  observer_options.record_shapes = true;
  jt::Observer observer(observer_options);
  observer.clear_captured();
  Recorder::global().start();
  if (Status s = observer.start(); !s.ok()) return report_error(s.error());
  for (int i = 0; i < std::max(1, c.run.steps); ++i) (*workload)->step();
  observer.stop();
  Recorder::global().stop();
  const jt::OpTimes times = jt::op_self_times(Recorder::global().collect());

  bool interrupted = false;
  auto calibration = run_calibration(observer.captured_ops(), times, c.calibration, *options,
                                     monitor_options, interrupted);
  if (!calibration.ok()) return report_error(calibration.error());
  calibration->model = (*workload)->description();
  if (Status s = write_calibration_json(*calibration, c.output); !s.ok())
    return report_error(s.error());
  print_calibration(*calibration, c.output);
  std::cout << fmt::format("calibration took {:.1f} s\n", ns_to_s(monotonic_now_ns() - began));
  return interrupted ? kExitInterrupted : kExitOk;
}

}  // namespace

CommandRunner add_calibrate_command(CLI::App& parent) {
  auto c = std::make_shared<CalibrateCommand>();
  c->run.steps = 1;
  c->run.warmup = 1;
  CLI::App* command = parent.add_subcommand(std::string(kCalibrateCommand.name),
                                            std::string(kCalibrateCommand.description));
  command->add_option("--model", c->run.workload.model, "Zoo model whose op classes are replayed")
      ->capture_default_str();
  command->add_option("--layers", c->run.workload.layers, "BERT/ALBERT layers, MLP depth");
  command->add_option("--hidden", c->run.workload.hidden,
                      "BERT/ALBERT hidden size, MLP/VGG classifier width");
  add_torch_run_options(*command, c->run);
  // Each class's gate measures its own baseline: no idle period before the run.
  command->remove_option(command->get_option("--idle"));
  command->add_option("--output", c->output, "Calibration file to write")->capture_default_str();
  add_calibration_options(*command, c->calibration);
  return [c] { return run_calibrate(*c); };
}

}  // namespace jouleprof::cli
