// The monitor, clock and external-span sections of the C API: noexcept wrappers over
// jouleprof::Monitor and the recorder.
#include <fmt/format.h>
#include <unistd.h>

#include <cstddef>
#include <exception>
#include <memory>
#include <string>
#include <vector>

#include "capi/json_options.hpp"
#include "capi/last_error.hpp"
#include "capi/sized_struct.hpp"
#include "core/time_range.hpp"
#include "jouleprof/cluster.hpp"
#include "jouleprof/jouleprof.h"
#include "jouleprof/monitor.hpp"
#include "jouleprof/observed_processes.hpp"
#include "jouleprof/process_share.hpp"
#include "jouleprof/recorder.hpp"
#include "jouleprof/recording_attribution.hpp"
#include "jouleprof/sources.hpp"

struct jp_monitor {
  std::unique_ptr<jouleprof::Monitor> monitor;
  bool record_spans = true;
  bool attribute = true;
  // From jp_monitor_warn and jp_monitor_cut_short, for the profile jp_monitor_stop writes.
  std::vector<std::string> warnings;
  bool cut_short = false;
};

namespace {

using jouleprof::Error;
using jouleprof::ErrorCode;
using jouleprof::Result;
namespace capi = jouleprof::capi;

using jouleprof::JsonFields;
using nlohmann::json;

constexpr JsonFields kMonitorOptions("jp_monitor_start options_json");

// "observe": "self" (default: this process and its descendants), "none", {"pid": N} or
// {"cgroup": "PATH"}.
Result<std::shared_ptr<jouleprof::ObservedProcesses>> observed_processes(const json& options) {
  using jouleprof::ObservedProcesses;
  const json* observe = JsonFields::find(options, "observe");
  if (observe == nullptr || *observe == "self") return ObservedProcesses::process_tree(getpid());
  if (*observe == "none") return std::shared_ptr<ObservedProcesses>();
  if (observe->is_object() && observe->size() == 1 && observe->contains("pid")) {
    JP_TRY(const pid_t pid,
           kMonitorOptions.get<pid_t>(
               *observe, "pid", "observe", [](pid_t p) { return p > 0; }, "is not a process id"));
    return ObservedProcesses::process_tree(pid);
  }
  if (observe->is_object() && observe->size() == 1 && observe->contains("cgroup")) {
    JP_TRY(const std::string cgroup,
           kMonitorOptions.get<std::string>(
               *observe, "cgroup", "observe", [](const std::string& c) { return !c.empty(); },
               "is empty"));
    return ObservedProcesses::cgroup(cgroup);
  }
  return kMonitorOptions.bad_value(
      "observe", *observe, "is not \"self\", \"none\", {\"pid\": N} or {\"cgroup\": \"PATH\"}");
}

Result<jouleprof::MonitorOptions> monitor_options(const char* sources, const json& options) {
  jouleprof::MonitorOptions out;
  JP_TRY(out.sources, capi::source_options(sources, options, kMonitorOptions));
  JP_TRY(const std::optional<double> interval_ms,
         kMonitorOptions.optional<double>(
             options, "interval_ms", "",
             [](double ms) { return ms > 0.0 && ms * 1e-3 <= jouleprof::kMaxTimeS; },
             "is not a positive number of at most 146 years"));
  if (interval_ms) out.interval_ns = jouleprof::s_to_ns(*interval_ms * 1e-3);
  JP_TRY(out.sources.observed, observed_processes(options));
  if (JsonFields::find(options, "static_share")) {
    JP_TRY(out.process_shares.static_share,
           kMonitorOptions.named<jouleprof::StaticShare>(options, "static_share", "",
                                                         jouleprof::static_share_from_string,
                                                         "cpu-time, none, all"));
  }
  return out;
}

Result<std::unique_ptr<jp_monitor>> start_monitor(const char* sources, const char* options_json) {
  JP_TRY(const json options,
         capi::parse_options_json(options_json, kMonitorOptions,
                                  {"interval_ms", "sysfs_root", "settings", "record_spans",
                                   "attribute", "observe", "static_share"}));
  auto handle = std::make_unique<jp_monitor>();
  JP_TRY(handle->record_spans, kMonitorOptions.get_or<bool>(options, "record_spans", "", true));
  JP_TRY(handle->attribute, kMonitorOptions.get_or<bool>(options, "attribute", "", true));
  JP_TRY(jouleprof::MonitorOptions settings, monitor_options(sources, options));
  // Recorded spans sit on this process's threads: their CPU time weighs them.
  if (handle->record_spans && settings.sources.observed) {
    settings.sources.settings.emplace("processes.threads", "1");
  }
  JP_TRY(handle->monitor, jouleprof::Monitor::open(settings));
  // The recorder starts first so that spans begun right after this call fall inside the run.
  if (handle->record_spans) jouleprof::Recorder::global().start();
  if (const jouleprof::Status started = handle->monitor->start(); !started) {
    if (handle->record_spans) jouleprof::Recorder::global().stop();
    return started.error();
  }
  return handle;
}

jp_status stop_monitor(std::unique_ptr<jp_monitor> handle, const char* profile_path,
                       jp_totals* out_totals) {
  jouleprof::Profile profile = handle->monitor->stop();
  jouleprof::record_cluster_identity(profile);
  if (handle->record_spans) {
    jouleprof::Recorder& recorder = jouleprof::Recorder::global();
    recorder.stop();
    profile.timeline = recorder.collect();
    if (const std::uint64_t dropped = recorder.dropped(); dropped > 0) {
      profile.warnings.push_back(
          fmt::format("the recorder dropped {} records (full per-thread buffers)", dropped));
    }
  }
  profile.meta.options.capi.record_spans = handle->record_spans;
  profile.meta.partial = profile.meta.partial || handle->cut_short;
  for (std::string& w : handle->warnings) profile.warnings.push_back(std::move(w));
  if (handle->attribute && !profile.timeline.spans().empty()) {
    // A failed attribution keeps the measurement, with a warning.
    if (const auto attributed = jouleprof::attribute_recording(profile, {}); !attributed) {
      profile.warnings.push_back("attribution failed: " + attributed.error().message());
    }
  }
  if (profile_path != nullptr) {
    if (const jouleprof::Status written = jouleprof::write_profile_json(profile, profile_path);
        !written) {
      return capi::fail(written.error());
    }
  }
  // Checked after the profile is written: a caller's mistake here does not lose the measurement.
  if (const jouleprof::Status sized =
          capi::check_struct_size(out_totals, offsetof(jp_totals, energy_low_j), "jp_totals");
      !sized) {
    return capi::fail(sized.error());
  }
  if (out_totals != nullptr) {
    const double duration_s = jouleprof::ns_to_s(profile.meta.end_ns - profile.meta.begin_ns);
    const double energy_j = profile.total_energy_j();
    const jouleprof::EnergyBand band =
        profile.total_energy_band().value_or(jouleprof::EnergyBand{energy_j, energy_j});
    jp_totals totals{};
    totals.energy_j = energy_j;
    totals.duration_s = duration_s;
    totals.mean_power_w = duration_s > 0 ? energy_j / duration_s : 0.0;
    totals.spans = static_cast<uint64_t>(profile.timeline.spans().size());
    totals.energy_low_j = band.low_j;
    totals.energy_high_j = band.high_j;
    totals.uncertainty_dominant = to_string(band.dominant).data();
    if (const std::optional<jouleprof::RepeatedEnergy>& step = profile.energy_per_step) {
      totals.steps = step->stats.n;
      totals.step_energy_j = step->stats.mean;
      totals.step_low_j = step->band.low_j;
      totals.step_high_j = step->band.high_j;
    }
    capi::fill_sized_struct(out_totals, totals);
  }
  return JP_OK;
}

}  // namespace

extern "C" {

int64_t jp_now_ns(void) { return jouleprof::monotonic_now_ns(); }

jp_status jp_add_span(const char* track, const char* device, jp_name_id name, int64_t begin_ns,
                      int64_t end_ns, int category) {
  if (track == nullptr || name == JP_INVALID_NAME || end_ns < begin_ns) {
    return capi::fail(
        ErrorCode::kInvalidInput,
        "jp_add_span: track must not be NULL, name must be interned and end_ns >= begin_ns");
  }
  try {
    const auto cat = category >= JP_CATEGORY_REGION && category <= JP_CATEGORY_MEMORY
                         ? static_cast<jouleprof::SpanCategory>(category)
                         : jouleprof::SpanCategory::kRegion;
    jouleprof::Recorder::global().add_external_span(jouleprof::TrackKind::kCpuThread, track,
                                                    device != nullptr ? device : "cpu0", name,
                                                    begin_ns, end_ns, cat);
    return JP_OK;
  } catch (...) {
    return capi::fail_from_exception(std::current_exception());
  }
}

jp_status jp_monitor_start(const char* sources, const char* options_json,
                           jp_monitor** out_monitor) {
  if (out_monitor == nullptr) {
    return capi::fail(ErrorCode::kInvalidInput, "jp_monitor_start: out_monitor must not be NULL");
  }
  *out_monitor = nullptr;
  try {
    Result<std::unique_ptr<jp_monitor>> started = start_monitor(sources, options_json);
    if (!started) return capi::fail(started.error());
    *out_monitor = std::move(started).value().release();
    return JP_OK;
  } catch (...) {
    return capi::fail_from_exception(std::current_exception());
  }
}

jp_status jp_monitor_warn(jp_monitor* monitor, const char* warning) {
  if (monitor == nullptr || warning == nullptr) {
    return capi::fail(ErrorCode::kInvalidInput,
                      "jp_monitor_warn: monitor and warning must not be NULL");
  }
  try {
    monitor->warnings.emplace_back(warning);
    return JP_OK;
  } catch (...) {
    return capi::fail_from_exception(std::current_exception());
  }
}

jp_status jp_monitor_cut_short(jp_monitor* monitor, const char* reason) {
  if (monitor == nullptr || reason == nullptr) {
    return capi::fail(ErrorCode::kInvalidInput,
                      "jp_monitor_cut_short: monitor and reason must not be NULL");
  }
  try {
    monitor->warnings.emplace_back(reason);
    monitor->cut_short = true;
    return JP_OK;
  } catch (...) {
    return capi::fail_from_exception(std::current_exception());
  }
}

jp_status jp_monitor_stop(jp_monitor* monitor, const char* profile_path, jp_totals* out_totals) {
  if (monitor == nullptr)
    return capi::fail(ErrorCode::kInvalidInput, "jp_monitor_stop: monitor must not be NULL");
  std::unique_ptr<jp_monitor> owned(monitor);  // released on every path
  try {
    return stop_monitor(std::move(owned), profile_path, out_totals);
  } catch (...) {
    return capi::fail_from_exception(std::current_exception());
  }
}

}  // extern "C"
