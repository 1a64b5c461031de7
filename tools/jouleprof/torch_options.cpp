#include "torch_options.hpp"

#include <fmt/format.h>

#include <iostream>

#include "device_option.hpp"
#include "number_checks.hpp"

namespace jouleprof::cli {

void add_torch_run_options(CLI::App& command, TorchCommandOptions& o) {
  command
      .add_option("--mode", o.mode, "infer (forward only) or train (forward, backward, SGD step)")
      ->capture_default_str();
  command.add_option("--batch", o.workload.batch, "Samples per step (default: the model's)");
  command.add_option("--seq", o.workload.seq,
                     "Sequence length of BERT/ALBERT inputs (default 128)");
  command.add_option("--image", o.workload.image,
                     "Image height = width of vision inputs (default 224)");
  add_device_option(command, o.workload.device, "Where the model runs");
  command
      .add_option(
          "--threads", o.workload.threads,
          fmt::format("libtorch intra-op threads (default: libtorch's; at most {})", kMaxThreads))
      ->check(whole_number_in(0, kMaxThreads));
  command.add_option("--seed", o.workload.seed, "Seed of initialisation and synthetic inputs")
      ->capture_default_str();
  command
      .add_option("--steps", o.steps,
                  fmt::format("Recorded steps (at most {}); the energy per step's 95 % interval is "
                              "the Student-t one over them: at least 5",
                              kMaxRepetitions))
      ->check(count_up_to(kMaxRepetitions))
      ->capture_default_str();
  command
      .add_option("--warmup", o.warmup,
                  fmt::format("Steps run before recording (at most {})", kMaxRepetitions))
      ->check(whole_number_in(0, kMaxRepetitions))
      ->capture_default_str();
  command
      .add_option("--idle", o.idle_s,
                  "Seconds of idle baseline before the run (0: none; at most 100 years)")
      ->check(kDurationSecondsOrZero)
      ->capture_default_str();
  o.source_flags.add_to(command);
}

Status resolve_mode(TorchCommandOptions& o) {
  const auto mode = torch_adapter::mode_from_string(o.mode);
  if (!mode) return invalid_input("command line", "--mode", o.mode, "must be infer or train");
  o.workload.mode = *mode;
  return Status::Ok();
}

void add_calibration_options(CLI::App& command, CalibrationFlags& f) {
  command
      .add_option("--max-classes,--top-classes", f.max_classes,
                  "Calibrate at most this many op classes, those with the most self time first")
      ->check(kPositiveNumber)
      ->capture_default_str();
  command
      .add_option("--coverage", f.coverage_pct,
                  "Stop taking classes once they cover this % of the step's operator time")
      ->check(kPositiveNumber)
      ->capture_default_str();
  f.gate = std::make_unique<GatedFlags>(command, torch_adapter::CalibrationOptions{}.gate,
                                        GatedFlagNames{"--gate-interval", "--gate-warmup"});
  f.progress.add_to(command);
}

Result<Calibration> run_calibration(const std::vector<torch_adapter::CapturedOp>& ops,
                                    const torch_adapter::OpTimes& times,
                                    const CalibrationFlags& flags,
                                    const torch_adapter::CalibrationOptions& options,
                                    const MonitorOptions& monitor, bool& interrupted) {
  CommandProgress progress(flags.progress);
  const std::size_t classes = torch_adapter::calibration_class_count(ops, options);
  const TimeNs period = expected_update_period_ns(monitor, options.gate.interval_ns);
  const GatedEstimate estimate = estimate_gated(options.gate, period);
  const TimeNs estimate_ns = static_cast<TimeNs>(classes) * estimate.total_ns;
  progress.print(
      estimate_text("calibrate", classes, "classes at most", estimate, options.gate, period));
  progress->begin("calibrate", classes, estimate_ns);
  Result<Calibration> calibration = torch_adapter::calibrate(
      ops, times, [&] { return Monitor::open(monitor); }, options, progress.reporter());
  progress->end();
  progress.print(took_text("calibrate", progress->elapsed_ns(), estimate_ns));
  interrupted = progress.interrupted();
  return calibration;
}

Result<torch_adapter::CalibrationOptions> calibration_options(const CalibrationFlags& f,
                                                              DeviceKind device) {
  if (!(f.coverage_pct > 0.0 && f.coverage_pct <= 100.0)) {
    return invalid_input("command line", "--coverage", fmt::format("{}", f.coverage_pct),
                         "must be in (0, 100]");
  }
  torch_adapter::CalibrationOptions o;
  o.device = device;
  o.max_classes = f.max_classes;
  o.time_coverage = f.coverage_pct / 100.0;
  o.gate = f.gate->options();
  return o;
}

void print_calibration(const Calibration& c, const std::string& path) {
  if (c.provenance != "measured") {
    std::cout << fmt::format("{}: no measured counter; the powers below are {}.\n",
                             c.provenance == "estimated" ? "CPU ESTIMATE" : "NOT MEASURED",
                             c.provenance);
  }
  std::cout << fmt::format("Calibration of {} on {} ({}); mean idle baseline {:.2f} W\n{}\n",
                           c.model, c.device, fmt::join(c.channel_ids, ", "),
                           c.idle_power_w.value_or(0.0), c.method);
  std::cout << fmt::format("{:<32} {:>8} {:>8} {:>8} {:>10} {:>7} {:>9} {:>7}  {}\n", "class",
                           "power W", "net W", "± stdev", "call ms", "op time", "gate s", "reps",
                           "shapes");
  for (const CalibrationClass& k : c.classes) {
    const ClassMeasurement m = k.measurement.value_or(ClassMeasurement{});
    double waited_s = 0.0;
    for (const auto& g : m.gates) waited_s += g.waited_s;
    std::cout << fmt::format(
        "{:<32} {:>8.2f} {:>8.2f} {:>8.2f} {:>10.4f} {:>6.1f}% {:>9.1f} {:>7}  {}\n", k.match,
        k.power_w, m.net_power_w.mean, m.net_power_w.stdev, m.call_s * 1e3,
        100.0 * m.self_time_share, waited_s, m.net_power_w.n, m.signature);
    if (!m.incomplete.empty()) std::cout << "  incomplete: " << m.incomplete << '\n';
  }
  std::cout << fmt::format(
      "The {} calibrated classes cover {:.1f} % of the profiled step's operator time "
      "(self time).\n",
      c.classes.size(), 100.0 * c.time_coverage.value_or(0.0));
  for (const std::string& s : c.skipped) std::cout << "skipped " << s << '\n';
  std::cout << "calibration written to " << path << '\n';
}

}  // namespace jouleprof::cli
