#include "gated_flags.hpp"

#include <fmt/format.h>

#include "number_checks.hpp"

namespace jouleprof::cli {

GatedFlags::GatedFlags(CLI::App& c, const GatedOptions& defaults, const GatedFlagNames& names)
    : defaults_(defaults), given_(defaults) {
  interval_ms_ = ns_to_s(defaults.interval_ns) * 1e3;
  check_period_s_ = ns_to_s(defaults.check_period_ns);
  gate_timeout_s_ = ns_to_s(defaults.gate_timeout_ns);
  tail_wait_s_ = ns_to_s(defaults.tail_wait_ns);
  repeat_ = c.add_option("--repeat", given_.repetitions, "Gated repetitions per measurement")
                ->capture_default_str();
  warmup_ = c.add_option(names.warmup, given_.warmup_runs, "Warm-up calls before the first gate")
                ->capture_default_str();
  interval_ =
      c.add_option(names.interval, interval_ms_, "Analysis interval of the gate and the tail, ms")
          ->check(kPositiveNumber)
          ->capture_default_str();
  last_n_ = c.add_option("--last-n", given_.last_n, "Intervals the stability gate looks at")
                ->capture_default_str();
  cpu_cv_ = c.add_option("--cpu-max-cv", given_.cpu_max_cv, "CV threshold for CPU channels")
                ->check(kNonNegativeNumber)
                ->capture_default_str();
  dram_cv_ = c.add_option("--dram-max-cv", given_.dram_max_cv, "CV threshold for DRAM channels")
                 ->check(kNonNegativeNumber)
                 ->capture_default_str();
  gpu_cv_ = c.add_option("--gpu-max-cv", given_.gpu_max_cv, "CV threshold for GPU channels")
                ->check(kNonNegativeNumber)
                ->capture_default_str();
  tolerance_ =
      c.add_option("--tolerance", given_.tolerance, "Relative loosening of every CV threshold")
          ->check(kNonNegativeNumber)
          ->capture_default_str();
  cpu_temp_ =
      c.add_option("--cpu-max-temp", given_.cpu_max_temperature_c, "CPU temperature cap, °C")
          ->check(kFiniteNumber)
          ->capture_default_str();
  gpu_temp_ = c.add_option("--gpu-max-temp", given_.gpu_max_temperature_c,
                           "GPU temperature cap, °C (data-centre GPUs idle above FECoM's 40)")
                  ->check(kFiniteNumber)
                  ->capture_default_str();
  check_period_ = c.add_option("--check-period", check_period_s_, "Seconds between gate checks")
                      ->check(kNonNegativeNumber)
                      ->capture_default_str();
  gate_timeout_ =
      c.add_option("--gate-timeout", gate_timeout_s_, "Give up on the gate after this many seconds")
          ->check(kNonNegativeNumber)
          ->capture_default_str();
  tail_wait_ =
      c.add_option("--tail-wait", tail_wait_s_, "Seconds to watch for tail energy after the calls")
          ->check(kNonNegativeNumber)
          ->capture_default_str();
  tail_window_ = c.add_option("--tail-window", given_.tail_moving_average,
                              "Forward moving-average window of the tail rule, in intervals")
                     ->capture_default_str();
  min_updates_ = c.add_option("--min-updates", given_.min_counter_updates,
                              "Repeat the call until its window spans this many counter updates")
                     ->capture_default_str();
  if (names.offer_fecom_defaults) {
    c.add_flag(
        "--fecom-defaults", fecom_defaults_,
        "Start from FECoM's published protocol constants (500 ms intervals, 20 s checks, 120 s "
        "gate timeout, 30 s tail, 10 repetitions) instead of this command's fast ones");
  }
}

GatedOptions GatedFlags::options() const {
  GatedOptions o = fecom_defaults_ ? GatedOptions{} : defaults_;
  auto given = [](const CLI::Option* opt) { return opt->count() > 0; };
  if (given(repeat_)) o.repetitions = given_.repetitions;
  if (given(warmup_)) o.warmup_runs = given_.warmup_runs;
  if (given(interval_)) o.interval_ns = static_cast<TimeNs>(interval_ms_ * 1e6);
  if (given(last_n_)) o.last_n = given_.last_n;
  if (given(cpu_cv_)) o.cpu_max_cv = given_.cpu_max_cv;
  if (given(dram_cv_)) o.dram_max_cv = given_.dram_max_cv;
  if (given(gpu_cv_)) o.gpu_max_cv = given_.gpu_max_cv;
  if (given(tolerance_)) o.tolerance = given_.tolerance;
  if (given(cpu_temp_)) o.cpu_max_temperature_c = given_.cpu_max_temperature_c;
  if (given(gpu_temp_)) o.gpu_max_temperature_c = given_.gpu_max_temperature_c;
  if (given(check_period_)) o.check_period_ns = s_to_ns(check_period_s_);
  if (given(gate_timeout_)) o.gate_timeout_ns = s_to_ns(gate_timeout_s_);
  if (given(tail_wait_)) o.tail_wait_ns = s_to_ns(tail_wait_s_);
  if (given(tail_window_)) o.tail_moving_average = given_.tail_moving_average;
  if (given(min_updates_)) o.min_counter_updates = given_.min_counter_updates;
  return o;
}

}  // namespace jouleprof::cli
