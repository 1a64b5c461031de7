#include "gated_flags.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <vector>

#include "core/quantity_text.hpp"
#include "number_checks.hpp"

namespace jouleprof::cli {

GatedFlags::GatedFlags(CLI::App& c, const GatedOptions& defaults, const GatedFlagNames& names)
    : defaults_(defaults), given_(defaults) {
  interval_ms_ = ns_to_s(defaults.interval_ns) * 1e3;
  check_period_s_ = ns_to_s(defaults.check_period_ns);
  gate_timeout_s_ = ns_to_s(defaults.gate_timeout_ns);
  tail_wait_s_ = ns_to_s(defaults.tail_wait_ns);
  repeat_ =
      c.add_option("--repeat", given_.repetitions,
                   fmt::format("Gated repetitions per measurement (at most {})", kMaxRepetitions))
          ->check(count_up_to(kMaxRepetitions))
          ->capture_default_str();
  warmup_ =
      c.add_option(names.warmup, given_.warmup_runs,
                   fmt::format("Warm-up calls before the first gate (at most {})", kMaxRepetitions))
          ->check(whole_number_in(0, kMaxRepetitions))
          ->capture_default_str();
  interval_ = c.add_option(names.interval, interval_ms_,
                           "Analysis interval of the gate and the tail, ms (at most 100 years)")
                  ->check(kIntervalMilliseconds)
                  ->capture_default_str();
  last_n_ = c.add_option(
                 "--last-n", given_.last_n,
                 fmt::format("Intervals the stability gate looks at (at most {})", kMaxRepetitions))
                ->check(count_up_to(kMaxRepetitions))
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
  check_period_ = c.add_option("--check-period", check_period_s_,
                               "Seconds between gate checks (at most 100 years)")
                      ->check(kDurationSecondsOrZero)
                      ->capture_default_str();
  gate_timeout_ = c.add_option("--gate-timeout", gate_timeout_s_,
                               "Give up on the gate after this many seconds (at most 100 years)")
                      ->check(kDurationSecondsOrZero)
                      ->capture_default_str();
  tail_wait_ = c.add_option("--tail-wait", tail_wait_s_,
                            "Seconds to watch for tail energy after the calls (at most 100 years)")
                   ->check(kDurationSecondsOrZero)
                   ->capture_default_str();
  tail_window_ = c.add_option("--tail-window", given_.tail_moving_average,
                              fmt::format("Forward moving-average window of the tail rule, in "
                                          "intervals (at most {})",
                                          kMaxRepetitions))
                     ->check(whole_number_in(0, kMaxRepetitions))
                     ->capture_default_str();
  min_updates_ =
      c.add_option("--min-updates", given_.min_counter_updates,
                   fmt::format("Repeat the call until its window spans this many counter "
                               "updates (at most {})",
                               kMaxRepetitions))
          ->check(whole_number_in(0, kMaxRepetitions))
          ->capture_default_str();
  preset_ = defaults.preset;
  preset_option_ =
      c.add_option("--preset", preset_,
                   "Named protocol settings (docs/measure.md): fecom (FECoM's published ones, "
                   "≥ 50 s per repetition), standard (≈ 5 s per repetition, 5 repetitions), quick "
                   "(≈ 2 s per repetition, 3 repetitions of ~2 % resolution), kernel (≈ 0.5 s per "
                   "repetition, for kernels measured by the hundred)")
          ->check(CLI::IsMember({"fecom", "standard", "quick", "kernel"}))
          ->capture_default_str();
  quick_option_ = c.add_flag("--quick", quick_, "The quick preset (--preset quick)");
  fecom_option_ = c.add_flag("--fecom-defaults", fecom_defaults_,
                             "FECoM's published protocol (--preset fecom): 500 ms intervals, 20 s "
                             "checks, 120 s gate timeout, 30 s tail, 10 repetitions");
  quick_option_->excludes(fecom_option_)->excludes(preset_option_);
  fecom_option_->excludes(preset_option_);
}

GatedOptions GatedFlags::options() const {
  auto given = [](const CLI::Option* opt) { return opt->count() > 0; };
  std::string name = quick_ ? "quick" : fecom_defaults_ ? "fecom" : preset_;
  GatedOptions o =
      name == defaults_.preset ? defaults_ : gated_preset(*gated_preset_from_string(name));
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
  std::vector<std::string> changed;
  for (const CLI::Option* opt :
       {repeat_, warmup_, interval_, last_n_, cpu_cv_, dram_cv_, gpu_cv_, tolerance_, cpu_temp_,
        gpu_temp_, check_period_, gate_timeout_, tail_wait_, tail_window_, min_updates_}) {
    if (given(opt)) changed.push_back(opt->get_name());
  }
  o.preset =
      changed.empty() ? name : fmt::format("{} (changed: {})", name, fmt::join(changed, " "));
  return o;
}

TimeNs expected_update_period_ns(const MonitorOptions& monitor, TimeNs fallback) {
  const Result<std::unique_ptr<Monitor>> probe = Monitor::open(monitor);
  return probe ? slowest_nominal_period_ns((*probe)->channels(), fallback) : fallback;
}

std::string estimate_text(std::string_view command, std::size_t items, std::string_view unit,
                          const GatedEstimate& e, const GatedOptions& o, TimeNs period,
                          TimeNs extra_ns) {
  const auto n = static_cast<TimeNs>(items);
  const std::string count = unit.empty() ? "" : fmt::format("{} {} × ", items, unit);
  const bool quick = o.preset.rfind("quick", 0) == 0;
  GatedOptions other = gated_preset(quick ? GatedPreset::kFecom : GatedPreset::kQuick);
  other.warmup_runs = o.warmup_runs;
  const TimeNs other_ns = n * estimate_gated(other, period).total_ns + extra_ns;
  return fmt::format("{}: {}{} ≈ {} (preset {}); {} takes ≈ {}", command, count, e.describe(),
                     format_duration(n * e.total_ns + extra_ns), o.preset,
                     quick ? "--fecom-defaults" : "--quick", format_duration(other_ns));
}

std::string took_text(std::string_view command, TimeNs took_ns, TimeNs estimate_ns) {
  return fmt::format("{}: took {} (estimated ≈ {})", command, format_duration(took_ns),
                     format_duration(estimate_ns));
}

}  // namespace jouleprof::cli
