// The monitor, clock and external-span sections of the C API: noexcept wrappers over
// jouleprof::Monitor and the recorder.
#include <fmt/format.h>
#include <unistd.h>

#include <exception>
#include <memory>
#include <string>

#include "capi/json_options.hpp"
#include "capi/last_error.hpp"
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
};

namespace {

using jouleprof::Error;
using jouleprof::ErrorCode;
using jouleprof::Result;
namespace capi = jouleprof::capi;

constexpr std::string_view kStartCall = "jp_monitor_start";

// "observe": "self" (default: this process and its descendants), "none", {"pid": N} or
// {"cgroup": "PATH"}.
Result<std::shared_ptr<jouleprof::ObservedProcesses>> observed_processes(
    const nlohmann::json& options) {
  using jouleprof::ObservedProcesses;
  const auto it = options.find("observe");
  if (it == options.end() || *it == "self") return ObservedProcesses::process_tree(getpid());
  if (*it == "none") return std::shared_ptr<ObservedProcesses>();
  if (it->is_object() && it->size() == 1 && it->contains("pid") &&
      it->at("pid").is_number_integer() && it->at("pid").get<long long>() > 0) {
    return ObservedProcesses::process_tree(static_cast<pid_t>(it->at("pid").get<long long>()));
  }
  if (it->is_object() && it->size() == 1 && it->contains("cgroup") &&
      it->at("cgroup").is_string() && !it->at("cgroup").get<std::string>().empty()) {
    return ObservedProcesses::cgroup(it->at("cgroup").get<std::string>());
  }
  return jouleprof::invalid_input(
      kStartCall, "observe", it->dump(),
      "must be \"self\", \"none\", {\"pid\": N} or {\"cgroup\": \"PATH\"}");
}

Result<jouleprof::MonitorOptions> monitor_options(const char* sources,
                                                  const nlohmann::json& options) {
  jouleprof::MonitorOptions out;
  if (sources != nullptr) out.sources.selected = jouleprof::split_source_list(sources);
  if (const auto it = options.find("interval_ms"); it != options.end()) {
    if (!it->is_number() || it->get<double>() <= 0.0) {
      return jouleprof::invalid_input(kStartCall, "interval_ms", it->dump(),
                                      "must be a positive number");
    }
    out.interval_ns = jouleprof::s_to_ns(it->get<double>() * 1e-3);
  }
  JP_TRY(out.sources.sysfs_root, capi::option_string(options, kStartCall, "sysfs_root", "/"));
  JP_TRY(out.sources.observed, observed_processes(options));
  JP_TRY(const std::string static_share,
         capi::option_string(options, kStartCall, "static_share", "cpu-time"));
  const std::optional<jouleprof::StaticShare> rule =
      jouleprof::static_share_from_string(static_share);
  if (!rule) {
    return jouleprof::invalid_input(kStartCall, "static_share", static_share,
                                    "must be \"cpu-time\", \"none\" or \"all\"");
  }
  out.process_shares.static_share = *rule;
  if (const auto it = options.find("settings"); it != options.end()) {
    if (!it->is_object())
      return jouleprof::invalid_input(kStartCall, "settings", it->dump(), "must be an object");
    for (const auto& [key, value] : it->items()) {
      JP_TRY(out.sources.settings[key], capi::option_text(value, kStartCall, "settings." + key));
    }
  }
  return out;
}

Result<std::unique_ptr<jp_monitor>> start_monitor(const char* sources, const char* options_json) {
  JP_TRY(const nlohmann::json options,
         capi::parse_options_json(options_json, kStartCall,
                                  {"interval_ms", "sysfs_root", "settings", "record_spans",
                                   "attribute", "observe", "static_share"}));
  auto handle = std::make_unique<jp_monitor>();
  JP_TRY(handle->record_spans, capi::option_bool(options, kStartCall, "record_spans", true));
  JP_TRY(handle->attribute, capi::option_bool(options, kStartCall, "attribute", true));
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
  if (handle->record_spans) {
    jouleprof::Recorder& recorder = jouleprof::Recorder::global();
    recorder.stop();
    profile.timeline = recorder.collect();
    if (const std::uint64_t dropped = recorder.dropped(); dropped > 0) {
      profile.warnings.push_back(
          fmt::format("the recorder dropped {} records (full per-thread buffers)", dropped));
    }
  }
  profile.meta.options["capi.record_spans"] = handle->record_spans ? "true" : "false";
  if (handle->attribute && !profile.timeline.spans().empty()) {
    // A failed attribution keeps the measurement, with a warning.
    if (const auto attributed = jouleprof::attribute_recording(profile, {}); !attributed) {
      profile.warnings.push_back("attribution failed: " + attributed.error().message());
    }
  }
  if (out_totals != nullptr) {
    const double duration_s = jouleprof::ns_to_s(profile.meta.end_ns - profile.meta.begin_ns);
    const double energy_j = profile.total_energy_j();
    *out_totals = jp_totals{energy_j, duration_s, duration_s > 0 ? energy_j / duration_s : 0.0,
                            static_cast<uint64_t>(profile.timeline.spans().size())};
  }
  if (profile_path != nullptr) {
    if (const jouleprof::Status written = jouleprof::write_profile_json(profile, profile_path);
        !written) {
      return capi::fail(written.error());
    }
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
