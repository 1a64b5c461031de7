#include "torch_options.hpp"

#include <iostream>

#include <fmt/format.h>

namespace jouleprof::cli {

void add_torch_run_options(CLI::App& command, TorchCommandOptions& o) {
  command.add_option("--mode", o.mode, "infer (forward only) or train (forward, backward, SGD step)")
      ->capture_default_str();
  command.add_option("--batch", o.workload.batch, "Samples per step (default: the model's)");
  command.add_option("--seq", o.workload.seq, "Sequence length of BERT/ALBERT inputs (default 128)");
  command.add_option("--image", o.workload.image, "Image height = width of vision inputs (default 224)");
  command.add_option("--device", o.workload.device, "cpu or cuda")->capture_default_str();
  command.add_option("--threads", o.workload.threads, "libtorch intra-op threads (default: libtorch's)");
  command.add_option("--seed", o.workload.seed, "Seed of initialisation and synthetic inputs")->capture_default_str();
  command.add_option("--steps", o.steps, "Recorded steps")->capture_default_str();
  command.add_option("--warmup", o.warmup, "Steps run before recording")->capture_default_str();
  command.add_option("--idle", o.idle_s, "Seconds of idle baseline before the run (0: none)")->capture_default_str();
  o.source_flags.add_to(command);
}

Status resolve_mode(TorchCommandOptions& o) {
  const auto mode = torch_adapter::mode_from_string(o.mode);
  if (!mode) return invalid_input("command line", "--mode", o.mode, "must be infer or train");
  o.workload.mode = *mode;
  return Status::Ok();
}

void add_calibration_options(CLI::App& command, CalibrationFlags& f) {
  command.add_option("--max-classes,--top-classes", f.max_classes,
                     "Calibrate at most this many op classes, those with the most self time first")
      ->capture_default_str();
  command.add_option("--coverage", f.coverage_pct,
                     "Stop taking classes once they cover this % of the step's operator time")
      ->capture_default_str();
  command.add_flag("--fecom-gate", f.fecom_gate,
                   "Gate with FECoM's published settings (0.5 s intervals, 20 s checks, 30 s tail, 10 "
                   "repetitions) instead of the calibration's short ones");
  command.add_option("--repeat", f.repetitions, "Gated repetitions per class (default 3; FECoM 10)");
  command.add_option("--gate-interval", f.interval_ms, "Analysis interval of the gate and tail, ms (default 100; FECoM 500)");
  command.add_option("--last-n", f.last_n, "Intervals the stability gate looks at (default 10; FECoM 20)");
  command.add_option("--tolerance", f.tolerance, "Relative loosening of every CV threshold (default 0)");
  command.add_option("--check-period", f.check_period_s, "Seconds between gate checks (default 1; FECoM 20)");
  command.add_option("--gate-timeout", f.gate_timeout_s, "Give up a class's gate after this many seconds (default 15; FECoM 120)");
  command.add_option("--tail-wait", f.tail_wait_s, "Seconds of tail watched after each replay loop (default 1; FECoM 30)");
  command.add_option("--min-updates", f.min_updates, "Loop each replay until its window spans this many counter updates (default 50; FECoM-style measure 10)");
  command.add_option("--cpu-max-temp", f.cpu_max_temp_c, "Gate: CPU temperature cap, °C (default FECoM's 55)");
  command.add_option("--gpu-max-temp", f.gpu_max_temp_c, "Gate: GPU temperature cap, °C (default FECoM's 40; data-centre GPUs idle above it)");
}

Result<torch_adapter::CalibrationOptions> calibration_options(const CalibrationFlags& f,
                                                              const std::string& device) {
  torch_adapter::CalibrationOptions o;
  o.device = device;
  if (f.fecom_gate) o.gate = GatedOptions{};
  if (f.max_classes == 0) return invalid_input("command line", "--max-classes", "0", "must be at least 1");
  if (!(f.coverage_pct > 0.0 && f.coverage_pct <= 100.0)) {
    return invalid_input("command line", "--coverage", fmt::format("{}", f.coverage_pct), "must be in (0, 100]");
  }
  const auto positive = [](const char* flag, double value) -> Status {
    if (value < 0.0) return invalid_input("command line", flag, fmt::format("{}", value), "must not be negative");
    return Status::Ok();
  };
  JP_RETURN_IF_ERROR(positive("--gate-interval", f.interval_ms));
  JP_RETURN_IF_ERROR(positive("--tolerance", f.tolerance));
  JP_RETURN_IF_ERROR(positive("--check-period", f.check_period_s));
  JP_RETURN_IF_ERROR(positive("--gate-timeout", f.gate_timeout_s));
  JP_RETURN_IF_ERROR(positive("--tail-wait", f.tail_wait_s));
  o.max_classes = f.max_classes;
  o.time_coverage = f.coverage_pct / 100.0;
  if (f.repetitions > 0) o.gate.repetitions = f.repetitions;
  if (f.interval_ms > 0.0) o.gate.interval_ns = static_cast<TimeNs>(f.interval_ms * 1e6);
  if (f.last_n > 0) o.gate.last_n = f.last_n;
  if (f.tolerance > 0.0) o.gate.tolerance = f.tolerance;
  if (f.check_period_s > 0.0) o.gate.check_period_ns = s_to_ns(f.check_period_s);
  if (f.gate_timeout_s > 0.0) o.gate.gate_timeout_ns = s_to_ns(f.gate_timeout_s);
  if (f.tail_wait_s > 0.0) o.gate.tail_wait_ns = s_to_ns(f.tail_wait_s);
  if (f.min_updates > 0) o.gate.min_counter_updates = f.min_updates;
  if (f.cpu_max_temp_c > 0.0) o.gate.cpu_max_temperature_c = f.cpu_max_temp_c;
  if (f.gpu_max_temp_c > 0.0) o.gate.gpu_max_temperature_c = f.gpu_max_temp_c;
  return o;
}

void print_calibration(const torch_adapter::Calibration& c, const std::string& path) {
  if (c.provenance != "measured") {
    std::cout << fmt::format("{}: no measured counter; the powers below are {}.\n",
                             c.provenance == "estimated" ? "CPU ESTIMATE" : "NOT MEASURED", c.provenance);
  }
  std::cout << fmt::format("Calibration of {} on {} ({}); mean idle baseline {:.2f} W\n{}\n", c.model, c.device,
                           fmt::join(c.channel_ids, ", "), c.idle_power_w, c.method);
  std::cout << fmt::format("{:<32} {:>8} {:>8} {:>8} {:>10} {:>7} {:>9} {:>7}  {}\n", "class", "power W", "net W",
                           "± stdev", "call ms", "op time", "gate s", "reps", "shapes");
  for (const torch_adapter::ClassCalibration& k : c.classes) {
    double waited_s = 0.0;
    for (const auto& g : k.gates) waited_s += g.waited_s;
    std::cout << fmt::format("{:<32} {:>8.2f} {:>8.2f} {:>8.2f} {:>10.4f} {:>6.1f}% {:>9.1f} {:>7}  {}\n",
                             k.op_class, k.power_w, k.net_power_w.mean, k.net_power_w.stdev, k.call_s * 1e3,
                             100.0 * k.self_time_share, waited_s, k.net_power_w.n, k.signature);
    if (!k.incomplete.empty()) std::cout << "  incomplete: " << k.incomplete << '\n';
  }
  std::cout << fmt::format("The {} calibrated classes cover {:.1f} % of the profiled step's operator time "
                           "(self time).\n",
                           c.classes.size(), 100.0 * c.time_coverage);
  for (const std::string& s : c.skipped) std::cout << "skipped " << s << '\n';
  std::cout << "calibration written to " << path << '\n';
}

}  // namespace jouleprof::cli
