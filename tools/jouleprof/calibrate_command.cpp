// jouleprof calibrate --model NAME: records the op classes (with their shapes) of a few steps of a
// zoo model, replays each class alone and writes the per-class power as a calibration file.
#include <iostream>

#include <fmt/format.h>

#include "command.hpp"
#include "jouleprof/recorder.hpp"
#include "jouleprof/sources.hpp"
#include "jouleprof/torch.hpp"
#include "torch_options.hpp"

namespace jouleprof::cli {
namespace {

namespace jt = torch_adapter;

struct CalibrateCommand {
  TorchCommandOptions run;
  std::string output = "calibration.json";
  double min_replay_s = 0.3;
  std::size_t max_classes = 24;
};

int run_calibrate(CalibrateCommand& c) {
  if (Status s = resolve_mode(c.run); !s.ok()) return report_error(s.error());
  auto workload = jt::make_workload(c.run.workload);
  if (!workload.ok()) return report_error(workload.error());

  auto source_options = c.run.source_flags.to_options();
  if (!source_options.ok()) return report_error(source_options.error());
  auto found = discover_sources(*source_options);
  if (!found.ok()) return report_error(found.error());
  if (found->available.empty()) return report_error(Error(ErrorCode::kUnavailable, "no energy source is available"));

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
  const auto ops = observer.captured_ops();

  jt::CalibrationOptions options;
  options.device = c.run.workload.device;
  options.min_replay_ns = s_to_ns(c.min_replay_s);
  options.idle_ns = s_to_ns(c.run.idle_s);
  options.max_classes = c.max_classes;
  std::string why_not;
  for (auto& source : found->available) {
    auto calibration = jt::calibrate(ops, *source, options);
    if (!calibration.ok()) {
      why_not += "\n  " + calibration.error().message();
      continue;
    }
    calibration->model = (*workload)->description();
    if (calibration->provenance != "measured") {
      std::cout << fmt::format("{} ({}): no measured counter; the powers below are {}.\n",
                               calibration->provenance == "estimated" ? "CPU ESTIMATE" : "NOT MEASURED",
                               source->name(), calibration->provenance);
    }
    std::cout << fmt::format("{} on {} ({}), idle {:.2f} W\n{:<36} {:>9} {:>9} {:>8} {:>9}  {}\n",
                             calibration->method, source->name(), fmt::join(calibration->channel_ids, ", "),
                             calibration->idle_power_w, "class", "power W", "dyn W", "time s", "iters", "shapes");
    for (const jt::ClassCalibration& k : calibration->classes) {
      std::cout << fmt::format("{:<36} {:>9.2f} {:>9.2f} {:>8.2f} {:>9}  {}\n", k.op_class, k.power_w,
                               k.dynamic_power_w, k.duration_s, k.iterations, k.signature);
    }
    for (const std::string& s : calibration->skipped) std::cout << "skipped " << s << '\n';
    if (Status s = jt::write_calibration_json(*calibration, c.output); !s.ok()) return report_error(s.error());
    std::cout << "calibration written to " << c.output << '\n';
    return kExitOk;
  }
  return report_error(Error(ErrorCode::kUnavailable, "no source could calibrate:" + why_not));
}

}  // namespace

CommandRunner add_calibrate_command(CLI::App& parent) {
  auto c = std::make_shared<CalibrateCommand>();
  c->run.steps = 1;
  c->run.warmup = 1;
  c->run.idle_s = 0.5;
  CLI::App* command = parent.add_subcommand(
      "calibrate", "Measure the power of each operator class of a zoo model, replayed alone");
  command->add_option("--model", c->run.workload.model, "Zoo model whose op classes are replayed")->capture_default_str();
  command->add_option("--layers", c->run.workload.layers, "BERT/ALBERT layers, MLP depth");
  command->add_option("--hidden", c->run.workload.hidden, "BERT/ALBERT hidden size, MLP/VGG classifier width");
  add_torch_run_options(*command, c->run);
  command->add_option("--output", c->output, "Calibration file to write")->capture_default_str();
  command->add_option("--min-replay", c->min_replay_s, "Seconds each class is replayed at least")->capture_default_str();
  command->add_option("--max-classes", c->max_classes, "Classes replayed, most frequent first")->capture_default_str();
  return [c] { return run_calibrate(*c); };
}

}  // namespace jouleprof::cli
