#include "jouleprof/fecom_records.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <regex>

#include "core/json_brief.hpp"
#include "core/json_fields.hpp"
#include "core/json_file.hpp"
#include "core/parse.hpp"
#include "core/time_range.hpp"
#include "jouleprof/statistics.hpp"
#include "sources/plausibility.hpp"

namespace jouleprof {
namespace {

using nlohmann::json;

Result<TimeNs> seconds_to_ns(const JsonFields& f, double s, const std::string& where) {
  const std::optional<TimeNs> ns = checked_s_to_ns(s);
  if (!ns) return f.error(where, fmt::format("is not a time in seconds ({})", s));
  return *ns;
}

Result<TimeNs> seconds_field(const JsonFields& f, const json& j, std::string_view key,
                             const std::string& where) {
  JP_TRY(const double s, f.get<double>(j, key, where));
  return seconds_to_ns(f, s, fmt::format("{}.{}", where, key));
}

// pandas' split orientation: {"columns": [...], "index": [...], "data": [[...], ...]}, stored as
// a JSON string inside the record.
struct SplitFrame {
  std::vector<std::string> columns;
  json data;

  Result<std::size_t> column(const JsonFields& f, const std::string& name,
                             const std::string& where) const {
    const auto it = std::find(columns.begin(), columns.end(), name);
    if (it == columns.end()) return f.error(where, "has no column '" + name + "'");
    return static_cast<std::size_t>(it - columns.begin());
  }
};

Result<SplitFrame> parse_frame(const JsonFields& f, const json& encoded, const std::string& where) {
  if (!encoded.is_string()) return f.error(where, "is not a pandas split-JSON string");
  JP_TRY(const json frame, parse_json(encoded.get_ref<const std::string&>(),
                                      fmt::format("{}: field '{}'", f.origin(), where)));
  SplitFrame split;
  JP_TRY(split.columns, f.get<std::vector<std::string>>(frame, "columns", where));
  JP_TRY(const json* data, f.array(frame, "data", where));
  split.data = *data;
  return split;
}

Result<double> cell(const JsonFields& f, const json& row, std::size_t col,
                    const std::string& where) {
  if (!row.is_array() || col >= row.size() || !row[col].is_number()) {
    return f.error(where, "holds a row that is not numeric (" + json_brief(row) + ")");
  }
  return row[col].get<double>();
}

// perf's CPU/RAM frames: (time_elapsed s, energy J per interval).
Result<IntervalTrace> energy_trace(const JsonFields& f, const SplitFrame& frame,
                                   double first_interval_s, const std::string& where) {
  JP_TRY(const std::size_t t_col, frame.column(f, "time_elapsed", where));
  JP_TRY(const std::size_t e_col, frame.column(f, "energy (J)", where));
  IntervalTrace trace;
  double previous_s = 0.0;
  for (const json& row : frame.data) {
    JP_TRY(const double t, cell(f, row, t_col, where));
    const double interval = trace.empty() ? std::min(t, first_interval_s) : t - previous_s;
    IntervalSample sample;
    JP_TRY(sample.end_ns, seconds_to_ns(f, t, where));
    JP_TRY(sample.duration_ns, seconds_to_ns(f, interval, where));
    JP_TRY(sample.energy_j, cell(f, row, e_col, where));
    trace.push_back(sample);
    previous_s = t;
  }
  return trace;
}

// nvidia-smi's GPU frame: power (W) sampled at time_elapsed; energy = power × interval.
Result<IntervalTrace> power_trace(const JsonFields& f, const SplitFrame& frame,
                                  double first_interval_s, std::vector<double>& temps,
                                  const std::string& where) {
  JP_TRY(const std::size_t t_col, frame.column(f, "time_elapsed", where));
  JP_TRY(const std::size_t p_col, frame.column(f, "power_draw (W)", where));
  JP_TRY(const std::size_t temp_col, frame.column(f, "temperature", where));
  IntervalTrace trace;
  double previous_s = 0.0;
  for (const json& row : frame.data) {
    JP_TRY(const double t, cell(f, row, t_col, where));
    const double interval = trace.empty() ? first_interval_s : t - previous_s;
    IntervalSample sample;
    JP_TRY(sample.end_ns, seconds_to_ns(f, t, where));
    JP_TRY(sample.duration_ns, seconds_to_ns(f, interval, where));
    JP_TRY(const double power_w, cell(f, row, p_col, where));
    sample.energy_j = power_w * interval;
    JP_TRY(const double temperature, cell(f, row, temp_col, where));
    trace.push_back(sample);
    temps.push_back(temperature);
    previous_s = t;
  }
  return trace;
}

// Leaves out the samples whose energy is negative or more than the device could use in their
// interval (sources/plausibility.hpp): they are gaps in the trace, and the warning says so.
std::optional<std::string> drop_implausible(IntervalTrace& trace, FecomDevice device,
                                            const std::string& origin) {
  const PowerCeiling ceiling = power_ceiling(device == FecomDevice::kCpu   ? "package"
                                             : device == FecomDevice::kRam ? "dram"
                                                                           : "gpu");
  std::size_t dropped = 0;
  std::string first;
  std::erase_if(trace, [&](const IntervalSample& s) {
    if (!std::isfinite(s.energy_j) || plausible_energy(ceiling, s.duration_ns, s.energy_j)) {
      return false;  // non-finite values are an error of validate_trace
    }
    if (dropped++ == 0) {
      first = fmt::format("{} J in {} ns at {} ns", s.energy_j, s.duration_ns, s.end_ns);
    }
    return true;
  });
  if (dropped == 0) return std::nullopt;
  return fmt::format(
      "{}: {} sample{} left out as gaps, negative or above the {:.0f} W ceiling of a {} (first: "
      "{})",
      origin, dropped, dropped == 1 ? "" : "s", ceiling.watts, ceiling.device_class, first);
}

Result<FecomCall> parse_call(const JsonFields& f, const json& entry, std::size_t position) {
  const std::string where = fmt::format("call {}", position);
  if (!entry.is_object() || entry.size() != 1) {
    return f.error(where, "is not a one-key object {\"<api>\": {...}}");
  }
  FecomCall call;
  call.api = entry.begin().key();
  call.position = position;
  const json& body = entry.begin().value();
  const std::string at = fmt::format("call {} ({})", position, call.api);

  const std::string settings_at = at + ".settings";
  JP_TRY(const json* settings, f.member(body, "settings", at));
  JP_TRY(const double interval_s, f.get<double>(
                                      *settings, "measurement_interval_s", settings_at,
                                      [](double s) { return s > 0; }, "is not a positive number"));
  JP_TRY(call.wait_per_stable_check_ns,
         seconds_field(f, *settings, "wait_per_stable_check_loop_s", settings_at));
  JP_TRY(call.wait_after_run_ns, seconds_field(f, *settings, "wait_after_run_s", settings_at));

  const std::string times_at = at + ".times";
  JP_TRY(const json* times, f.member(body, "times", at));
  JP_TRY(call.start_perf_ns, seconds_field(f, *times, "start_time_perf", times_at));
  JP_TRY(call.end_perf_ns, seconds_field(f, *times, "end_time_perf", times_at));
  JP_TRY(call.start_nvidia_ns, seconds_field(f, *times, "start_time_nvidia", times_at));
  JP_TRY(call.end_nvidia_ns, seconds_field(f, *times, "end_time_nvidia", times_at));
  JP_TRY(const json* start_exec, f.member(*times, "start_time_execution", times_at));
  JP_TRY(const json* end_exec, f.member(*times, "end_time_execution", times_at));
  if (!json_holds_integer<TimeNs>(*start_exec) || !json_holds_integer<TimeNs>(*end_exec)) {
    return f.error(times_at + ".start/end_time_execution", "are not integer nanoseconds");
  }
  // Found by fuzz/fecom_records_fuzz.cpp: two far-apart times overflowed the difference.
  if (__builtin_sub_overflow(end_exec->get<TimeNs>(), start_exec->get<TimeNs>(),
                             &call.execution_ns)) {
    return f.error(times_at + ".start/end_time_execution",
                   "are too far apart for a duration in nanoseconds");
  }

  const std::string energy_at = at + ".energy_data";
  JP_TRY(const json* energy, f.member(body, "energy_data", at));
  for (FecomDevice d : kFecomDevices) {
    const std::string name(to_string(d));
    const std::string origin = energy_at + "." + name;
    JP_TRY(const json* encoded, f.member(*energy, name, energy_at));
    JP_TRY(const SplitFrame frame, parse_frame(f, *encoded, origin));
    IntervalTrace& trace = call.traces[static_cast<int>(d)];
    if (d == FecomDevice::kGpu) {
      JP_TRY(trace, power_trace(f, frame, interval_s, call.gpu_temperature_c, origin));
    } else {
      JP_TRY(trace, energy_trace(f, frame, interval_s, origin));
    }
  }
  for (FecomDevice d : kFecomDevices) {
    const std::string origin = energy_at + "." + std::string(to_string(d));
    if (auto dropped = drop_implausible(call.traces[static_cast<int>(d)], d, origin)) {
      call.warnings.push_back(std::move(*dropped));
    }
    const Status valid = validate_trace(call.traces[static_cast<int>(d)], origin);
    if (!valid) {
      return Error(ErrorCode::kInvalidInput,
                   fmt::format("{}: {}", f.origin(), valid.error().message()));
    }
  }
  if (const json* sizes = JsonFields::find(body, "input_sizes")) {
    const std::string sizes_at = at + ".input_sizes";
    JP_TRY(call.args_size, f.optional<double>(*sizes, "args_size", sizes_at));
    JP_TRY(call.object_size, f.optional<double>(*sizes, "object_size", sizes_at));
  }
  return call;
}

}  // namespace

std::string_view to_string(FecomDevice d) {
  switch (d) {
    case FecomDevice::kCpu:
      return "cpu";
    case FecomDevice::kRam:
      return "ram";
    case FecomDevice::kGpu:
      return "gpu";
  }
  return "unknown";
}

Result<std::vector<FecomCall>> read_fecom_experiment(const std::string& path) {
  JP_TRY(const json records, read_json_file(path, "FECoM record"));
  if (!records.is_array()) {
    return Error(ErrorCode::kInvalidInput, path + ": expected a list of call records");
  }
  const JsonFields fields(path);
  std::vector<FecomCall> calls;
  for (std::size_t i = 0; i < records.size(); ++i) {
    JP_TRY(FecomCall call, parse_call(fields, records[i], i));
    calls.push_back(std::move(call));
  }
  return calls;
}

Result<CallEnergy> analyse_fecom_call(const FecomCall& call, FecomDevice device) {
  CallAnalysisOptions options;
  options.baseline_window_ns = call.wait_per_stable_check_ns;
  options.tail_max_ns = call.wait_after_run_ns;
  options.tail_margin_w = device == FecomDevice::kGpu ? kFecomGpuTailMarginW : 0.0;
  const bool gpu = device == FecomDevice::kGpu;
  return analyse_call(call.traces[static_cast<int>(device)],
                      gpu ? call.start_nvidia_ns : call.start_perf_ns,
                      gpu ? call.end_nvidia_ns : call.end_perf_ns, options);
}

Result<FecomAnalysis> analyse_fecom_directory(const std::string& dir) {
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) {
    return Error(ErrorCode::kNotFound,
                 dir + ": not a directory of FECoM experiment-<k>.json files");
  }
  std::map<int, std::string> files;
  const std::regex name(R"(experiment-(\d+)\.json)");
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    std::smatch m;
    const std::string filename = entry.path().filename().string();
    if (!std::regex_match(filename, m, name)) continue;
    // A number too long for an int is no experiment number; the file is not one of the records.
    const std::optional<std::int64_t> k = to_int64(m[1].str());
    if (k && *k <= std::numeric_limits<int>::max())
      files.emplace(static_cast<int>(*k), entry.path().string());
  }
  if (files.empty()) return Error(ErrorCode::kNotFound, dir + ": no experiment-<k>.json files");

  FecomAnalysis analysis;
  analysis.experiments = static_cast<std::uint32_t>(files.size());
  std::vector<std::vector<FecomCall>> experiments;
  for (const auto& [k, path] : files) {
    JP_TRY(auto calls, read_fecom_experiment(path));
    for (const FecomCall& call : calls) {
      for (const std::string& w : call.warnings) analysis.warnings.push_back(path + ": " + w);
    }
    experiments.push_back(std::move(calls));
  }

  // A call is compared across experiments by (position, API); one missing anywhere is dropped.
  const std::vector<FecomCall>& reference = experiments.front();
  for (std::size_t pos = 0; pos < reference.size(); ++pos) {
    const std::string& api = reference[pos].api;
    const bool everywhere = std::all_of(experiments.begin(), experiments.end(), [&](const auto& e) {
      return pos < e.size() && e[pos].api == api;
    });
    if (!everywhere) {
      analysis.warnings.push_back(
          fmt::format("call {} ({}) is not in every experiment: left out", pos, api));
      continue;
    }
    FecomCallSummary summary;
    summary.api = api;
    summary.position = pos;
    summary.experiments = analysis.experiments;
    summary.args_size = reference[pos].args_size;
    std::vector<double> execution_s;
    for (const auto& e : experiments) execution_s.push_back(ns_to_s(e[pos].execution_ns));
    summary.execution_s = summarize(execution_s);
    for (FecomDevice d : kFecomDevices) {
      std::vector<double> total, net, tail, net_tail;
      FecomDeviceSummary& out = summary.devices[static_cast<int>(d)];
      for (const auto& e : experiments) {
        const Result<CallEnergy> energy = analyse_fecom_call(e[pos], d);
        if (!energy) {
          if (energy.error().code() != ErrorCode::kUnsupported) {
            return energy.error().with_context(
                fmt::format("{}: call {} ({}) {}", dir, pos, api, to_string(d)));
          }
          ++out.skipped;
          continue;
        }
        total.push_back(energy->total_j);
        net.push_back(energy->net_j);
        tail.push_back(energy->tail_j);
        net_tail.push_back(energy->net_plus_tail_j);
      }
      out.total_j = summarize(total);
      out.net_j = summarize(net);
      out.tail_j = summarize(tail);
      out.net_plus_tail_j = summarize(net_tail);
    }
    analysis.calls.push_back(std::move(summary));
  }
  return analysis;
}

}  // namespace jouleprof
