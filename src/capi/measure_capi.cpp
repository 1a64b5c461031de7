// The progress and gated-measurement section of the C API: jp_measure_gated runs a caller's
// function through measure_gated() and hands the progress events to a jp_progress_fn.
#include <cstddef>
#include <exception>
#include <optional>
#include <string>

#include "capi/json_options.hpp"
#include "capi/last_error.hpp"
#include "capi/sized_struct.hpp"
#include "core/time_range.hpp"
#include "jouleprof/gated_measurement.hpp"
#include "jouleprof/jouleprof.h"
#include "jouleprof/monitor.hpp"
#include "predict/kernel_bench.hpp"

namespace {

using jouleprof::Error;
using jouleprof::ErrorCode;
using jouleprof::GatedOptions;
using jouleprof::Result;
namespace capi = jouleprof::capi;

using jouleprof::JsonFields;
using nlohmann::json;

constexpr JsonFields kMeasureOptions("jp_measure_gated options_json");

Result<GatedOptions> gated_options(const json& options) {
  jouleprof::GatedPreset preset = jouleprof::GatedPreset::kStandard;
  if (JsonFields::find(options, "preset")) {
    JP_TRY(preset, kMeasureOptions.named<jouleprof::GatedPreset>(
                       options, "preset", "", jouleprof::gated_preset_from_string,
                       "fecom, standard, quick, kernel"));
  }
  GatedOptions o = jouleprof::gated_preset(preset);
  std::string changed;
  const auto note = [&](std::string_view key) {
    changed += (changed.empty() ? "" : " ") + std::string(key);
  };
  const auto count = [&](std::string_view key, std::size_t& field) -> jouleprof::Status {
    JP_TRY(const std::optional<std::size_t> v,
           kMeasureOptions.optional<std::size_t>(options, key, ""));
    if (v) {
      field = *v;
      note(key);
    }
    return jouleprof::Status::Ok();
  };
  const auto number = [&](std::string_view key) -> Result<std::optional<double>> {
    JP_TRY(const std::optional<double> v, kMeasureOptions.optional<double>(
                                              options, key, "", [](double x) { return x >= 0.0; },
                                              "is not a non-negative number"));
    if (v) note(key);
    return v;
  };
  const auto time = [&](std::string_view key, jouleprof::TimeNs& field,
                        double unit_s) -> jouleprof::Status {
    // Past kMaxTimeS the conversion to nanoseconds would overflow (undefined behaviour).
    JP_TRY(const std::optional<double> v,
           kMeasureOptions.optional<double>(
               options, key, "",
               [unit_s](double x) { return x >= 0.0 && x * unit_s <= jouleprof::kMaxTimeS; },
               "is not a non-negative time of at most 146 years"));
    if (v) {
      field = jouleprof::s_to_ns(*v * unit_s);
      note(key);
    }
    return jouleprof::Status::Ok();
  };
  JP_RETURN_IF_ERROR(count("repetitions", o.repetitions));
  JP_RETURN_IF_ERROR(count("warmup", o.warmup_runs));
  JP_RETURN_IF_ERROR(count("last_n", o.last_n));
  JP_RETURN_IF_ERROR(count("min_updates", o.min_counter_updates));
  JP_RETURN_IF_ERROR(time("interval_ms", o.interval_ns, 1e-3));
  JP_RETURN_IF_ERROR(time("check_period_s", o.check_period_ns, 1.0));
  JP_RETURN_IF_ERROR(time("gate_timeout_s", o.gate_timeout_ns, 1.0));
  JP_RETURN_IF_ERROR(time("tail_wait_s", o.tail_wait_ns, 1.0));
  JP_TRY(const std::optional<double> tolerance, number("tolerance"));
  if (tolerance) o.tolerance = *tolerance;
  if (!changed.empty()) o.preset += " (changed: " + changed + ")";
  return o;
}

// Translates the library's events for the caller's function; a non-zero return asks for a stop.
jouleprof::ProgressCallback c_progress(jp_progress_fn fn, void* user,
                                       jouleprof::ProgressReporter*& reporter) {
  return [fn, user, &reporter](const jouleprof::ProgressEvent& e) {
    jp_progress p{};
    p.kind = static_cast<int>(e.kind);
    p.task = e.task.c_str();
    p.item = e.item;
    p.items = e.items;
    p.item_name = e.item_name.c_str();
    p.step = e.step;
    p.steps = e.steps;
    p.phase = e.phase.c_str();
    p.has_gate = e.gate ? 1 : 0;
    p.gate_channel = e.gate ? e.gate->channel_id.c_str() : "";
    if (e.gate) {
      p.gate_value = e.gate->value;
      p.gate_threshold = e.gate->threshold;
      p.gate_temperature = e.gate->temperature ? 1 : 0;
      p.gate_passed = e.gate->passed ? 1 : 0;
      p.gate_checks = e.gate->checks;
      p.gate_waited_ns = e.gate->waited_ns;
    }
    p.elapsed_ns = e.elapsed_ns;
    p.eta_ns = e.eta_ns ? *e.eta_ns : -1;
    p.estimate_ns = e.estimate_ns;
    p.done = e.done;
    if (fn(&p, user) != 0 && reporter != nullptr) reporter->request_stop();
  };
}

jp_status measure(const char* sources, const char* options_json, jp_measured_fn fn, void* fn_user,
                  jp_progress_fn progress_fn, void* progress_user, const char* profile_path,
                  jp_gated_result* out) {
  if (fn == nullptr) return capi::fail(ErrorCode::kInvalidInput, "jp_measure_gated: fn is NULL");
  if (const jouleprof::Status sized =
          capi::check_struct_size(out, offsetof(jp_gated_result, total_low_j), "jp_gated_result");
      !sized)
    return capi::fail(sized.error());
  Result<json> options = capi::parse_options_json(
      options_json, kMeasureOptions,
      {"preset", "repetitions", "warmup", "last_n", "min_updates", "interval_ms", "check_period_s",
       "gate_timeout_s", "tail_wait_s", "tolerance", "sysfs_root", "settings"});
  if (!options) return capi::fail(options.error());
  Result<GatedOptions> gated = gated_options(*options);
  if (!gated) return capi::fail(gated.error());
  jouleprof::MonitorOptions monitor_options;
  Result<jouleprof::SourceOptions> source =
      capi::source_options(sources, *options, kMeasureOptions);
  if (!source) return capi::fail(source.error());
  monitor_options.sources = *source;
  Result<std::unique_ptr<jouleprof::Monitor>> monitor = jouleprof::Monitor::open(monitor_options);
  if (!monitor) return capi::fail(monitor.error());

  const jouleprof::TimeNs period =
      jouleprof::slowest_nominal_period_ns((*monitor)->channels(), gated->interval_ns);
  const jouleprof::GatedEstimate estimate = jouleprof::estimate_gated(*gated, period);
  jouleprof::ProgressReporter* self = nullptr;
  jouleprof::ProgressReporter reporter(progress_fn != nullptr
                                           ? c_progress(progress_fn, progress_user, self)
                                           : jouleprof::ProgressCallback{});
  self = &reporter;
  reporter.begin("measure", 0, estimate.total_ns);
  const auto call = [fn, fn_user]() -> jouleprof::Status {
    const int code = fn(fn_user);
    if (code == 0) return jouleprof::Status::Ok();
    return Error(ErrorCode::kInterrupted,
                 "jp_measure_gated: the measured function returned " + std::to_string(code));
  };
  Result<jouleprof::GatedResult> result =
      jouleprof::measure_gated(**monitor, call, *gated, &reporter);
  reporter.end();
  if (!result) return capi::fail(result.error());
  if (profile_path != nullptr) {
    if (const jouleprof::Status written = write_profile_json(result->profile, profile_path);
        !written)
      return capi::fail(written.error());
  }
  if (out != nullptr) {
    jp_gated_result filled{};
    filled.repetitions = result->repetitions.size();
    filled.repetitions_asked = gated->repetitions;
    filled.estimate_ns = estimate.total_ns;
    filled.took_ns = reporter.elapsed_ns();
    filled.incomplete = result->incomplete ? 1 : 0;
    using jouleprof::predict::KernelEnergyFigure;
    const auto total = jouleprof::predict::kernel_energy(*result, KernelEnergyFigure::kTotal);
    const auto net = jouleprof::predict::kernel_energy(*result, KernelEnergyFigure::kNet);
    if (total && net) {
      filled.total_j = total->energy_mj * 1e-3;
      filled.net_j = net->energy_mj * 1e-3;
      filled.net_stdev_j = net->energy_stdev_mj * 1e-3;
      filled.call_s = total->call_ms * 1e-3;
      filled.total_low_j = total->energy_band.low_j;
      filled.total_high_j = total->energy_band.high_j;
      filled.net_low_j = net->energy_band.low_j;
      filled.net_high_j = net->energy_band.high_j;
      filled.uncertainty_dominant = to_string(net->energy_band.dominant).data();
    }
    capi::fill_sized_struct(out, filled);
  }
  return JP_OK;
}

}  // namespace

extern "C" {

jp_status jp_measure_gated(const char* sources, const char* options_json, jp_measured_fn fn,
                           void* fn_user_data, jp_progress_fn progress, void* progress_user_data,
                           const char* profile_path, jp_gated_result* out_result) {
  try {
    return measure(sources, options_json, fn, fn_user_data, progress, progress_user_data,
                   profile_path, out_result);
  } catch (...) {
    return capi::fail_from_exception(std::current_exception());
  }
}

}  // extern "C"
