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
#include "core/parse.hpp"
#include "core/text_file.hpp"
#include "core/time_range.hpp"
#include "jouleprof/statistics.hpp"
#include "sources/plausibility.hpp"

namespace jouleprof {
namespace {

using nlohmann::json;

// Errors found deep inside one record, turned into an Error at the file boundary.
struct RecordError {
  std::string field;
  std::string problem;
};

const json& require(const json& j, const std::string& key, const std::string& where) {
  if (!j.is_object() || !j.contains(key)) throw RecordError{where + key, "missing"};
  return j.at(key);
}

double number(const json& j, const std::string& key, const std::string& where) {
  const json& v = require(j, key, where);
  if (!v.is_number()) throw RecordError{where + key, "is not a number (" + json_brief(v) + ")"};
  return v.get<double>();
}

TimeNs seconds_to_ns(double s, const std::string& where) {
  const std::optional<TimeNs> ns = checked_s_to_ns(s);
  if (!ns) throw RecordError{where, fmt::format("is not a time in seconds ({})", s)};
  return *ns;
}

TimeNs seconds_field(const json& j, const std::string& key, const std::string& where) {
  return seconds_to_ns(number(j, key, where), where + key);
}

// pandas' split orientation: {"columns": [...], "index": [...], "data": [[...], ...]}, stored as
// a JSON string inside the record.
struct SplitFrame {
  std::vector<std::string> columns;
  json data;

  std::size_t column(const std::string& name, const std::string& where) const {
    const auto it = std::find(columns.begin(), columns.end(), name);
    if (it == columns.end()) throw RecordError{where, "has no column '" + name + "'"};
    return static_cast<std::size_t>(it - columns.begin());
  }
};

SplitFrame parse_frame(const json& encoded, const std::string& where) {
  if (!encoded.is_string()) throw RecordError{where, "is not a pandas split-JSON string"};
  json frame;
  try {
    frame = json::parse(encoded.get<std::string>());
  } catch (const json::exception&) {
    throw RecordError{where, "is not valid JSON"};
  }
  SplitFrame f;
  f.columns = require(frame, "columns", where + ".").get<std::vector<std::string>>();
  f.data = require(frame, "data", where + ".");
  if (!f.data.is_array()) throw RecordError{where + ".data", "is not an array"};
  return f;
}

double cell(const json& row, std::size_t col, const std::string& where) {
  if (!row.is_array() || col >= row.size() || !row[col].is_number()) {
    throw RecordError{where, "holds a row that is not numeric (" + json_brief(row) + ")"};
  }
  return row[col].get<double>();
}

// perf's CPU/RAM frames: (time_elapsed s, energy J per interval).
IntervalTrace energy_trace(const SplitFrame& f, double first_interval_s, const std::string& where) {
  const std::size_t t_col = f.column("time_elapsed", where);
  const std::size_t e_col = f.column("energy (J)", where);
  IntervalTrace trace;
  double previous_s = 0.0;
  for (const json& row : f.data) {
    const double t = cell(row, t_col, where);
    const double interval = trace.empty() ? std::min(t, first_interval_s) : t - previous_s;
    trace.push_back(IntervalSample{seconds_to_ns(t, where), seconds_to_ns(interval, where),
                                   cell(row, e_col, where)});
    previous_s = t;
  }
  return trace;
}

// nvidia-smi's GPU frame: power (W) sampled at time_elapsed; energy = power × interval.
IntervalTrace power_trace(const SplitFrame& f, double first_interval_s, std::vector<double>& temps,
                          const std::string& where) {
  const std::size_t t_col = f.column("time_elapsed", where);
  const std::size_t p_col = f.column("power_draw (W)", where);
  const std::size_t temp_col = f.column("temperature", where);
  IntervalTrace trace;
  double previous_s = 0.0;
  for (const json& row : f.data) {
    const double t = cell(row, t_col, where);
    const double interval = trace.empty() ? first_interval_s : t - previous_s;
    trace.push_back(IntervalSample{seconds_to_ns(t, where), seconds_to_ns(interval, where),
                                   cell(row, p_col, where) * interval});
    temps.push_back(cell(row, temp_col, where));
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

std::optional<double> optional_number(const json& j, const char* key) {
  if (!j.is_object() || !j.contains(key) || !j.at(key).is_number()) return std::nullopt;
  return j.at(key).get<double>();
}

FecomCall parse_call(const json& entry, std::size_t position) {
  const std::string where = fmt::format("call {}", position);
  if (!entry.is_object() || entry.size() != 1) {
    throw RecordError{where, "is not a one-key object {\"<api>\": {...}}"};
  }
  FecomCall call;
  call.api = entry.begin().key();
  call.position = position;
  const json& body = entry.begin().value();
  const std::string at = fmt::format("call {} ({}).", position, call.api);

  const json& settings = require(body, "settings", at);
  const double interval_s = number(settings, "measurement_interval_s", at + "settings.");
  if (!(interval_s > 0)) {
    throw RecordError{at + "settings.measurement_interval_s",
                      fmt::format("must be positive ({})", interval_s)};
  }
  call.wait_per_stable_check_ns =
      seconds_field(settings, "wait_per_stable_check_loop_s", at + "settings.");
  call.wait_after_run_ns = seconds_field(settings, "wait_after_run_s", at + "settings.");

  const json& times = require(body, "times", at);
  call.start_perf_ns = seconds_field(times, "start_time_perf", at + "times.");
  call.end_perf_ns = seconds_field(times, "end_time_perf", at + "times.");
  call.start_nvidia_ns = seconds_field(times, "start_time_nvidia", at + "times.");
  call.end_nvidia_ns = seconds_field(times, "end_time_nvidia", at + "times.");
  const json& start_exec = require(times, "start_time_execution", at + "times.");
  const json& end_exec = require(times, "end_time_execution", at + "times.");
  if (!start_exec.is_number_integer() || !end_exec.is_number_integer()) {
    throw RecordError{at + "times.start/end_time_execution", "are not integer nanoseconds"};
  }
  // Found by fuzz/fecom_records_fuzz.cpp: two far-apart times overflowed the difference.
  if (__builtin_sub_overflow(end_exec.get<TimeNs>(), start_exec.get<TimeNs>(),
                             &call.execution_ns)) {
    throw RecordError{at + "times.start/end_time_execution",
                      "are too far apart for a duration in nanoseconds"};
  }

  const json& energy = require(body, "energy_data", at);
  call.traces[static_cast<int>(FecomDevice::kCpu)] =
      energy_trace(parse_frame(require(energy, "cpu", at + "energy_data."), at + "energy_data.cpu"),
                   interval_s, at + "energy_data.cpu");
  call.traces[static_cast<int>(FecomDevice::kRam)] =
      energy_trace(parse_frame(require(energy, "ram", at + "energy_data."), at + "energy_data.ram"),
                   interval_s, at + "energy_data.ram");
  call.traces[static_cast<int>(FecomDevice::kGpu)] =
      power_trace(parse_frame(require(energy, "gpu", at + "energy_data."), at + "energy_data.gpu"),
                  interval_s, call.gpu_temperature_c, at + "energy_data.gpu");
  for (FecomDevice d : kFecomDevices) {
    const std::string origin = at + "energy_data." + std::string(to_string(d));
    if (auto dropped = drop_implausible(call.traces[static_cast<int>(d)], d, origin)) {
      call.warnings.push_back(std::move(*dropped));
    }
    const Status valid = validate_trace(call.traces[static_cast<int>(d)], origin);
    if (!valid) throw RecordError{"", valid.error().message()};
  }
  if (body.contains("input_sizes")) {
    call.args_size = optional_number(body.at("input_sizes"), "args_size");
    call.object_size = optional_number(body.at("input_sizes"), "object_size");
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
  JP_TRY(const std::string text, read_text_file(path, "FECoM record"));
  json records;
  try {
    records = json::parse(text);
  } catch (const json::exception& e) {
    return Error(ErrorCode::kInvalidInput, fmt::format("{}: not valid JSON: {}", path, e.what()));
  }
  if (!records.is_array()) {
    return Error(ErrorCode::kInvalidInput, path + ": expected a list of call records");
  }
  std::vector<FecomCall> calls;
  try {
    for (std::size_t i = 0; i < records.size(); ++i) calls.push_back(parse_call(records[i], i));
  } catch (const RecordError& e) {
    if (e.field.empty())
      return Error(ErrorCode::kInvalidInput, fmt::format("{}: {}", path, e.problem));
    return Error(ErrorCode::kInvalidInput,
                 fmt::format("{}: field '{}' {}", path, e.field, e.problem));
  } catch (const json::exception& e) {
    return Error(ErrorCode::kInvalidInput, fmt::format("{}: {}", path, e.what()));
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
