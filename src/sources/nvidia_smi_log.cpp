// nvidia-smi CSV logs: `--query-gpu=timestamp,power.draw,… --format=csv[,noheader][,nounits]`.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <limits>
#include <map>
#include <optional>

#include "core/csv.hpp"
#include "core/line_reader.hpp"
#include "core/parse.hpp"
#include "sources/power_log.hpp"
#include "sources/trace_text.hpp"

namespace jouleprof {
namespace {

using trace_text::RawSample;

// Canonical --query-gpu names; the seaa2023 scripts wrote their own header names.
std::string canonical_column(std::string_view header) {
  std::string name(trim_ascii_space(header.substr(0, header.find(" ["))));
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  static const std::map<std::string, std::string, std::less<>> kAliases = {
      {"gpu_name", "name"},
      {"gpu_usage", "utilization.gpu"},
      {"gpu_power_draw", "power.draw"},
      {"gpu_temperature", "temperature.gpu"},
      {"gpu_memory_used", "memory.used"},
      {"gpu_index", "index"}};
  if (auto it = kAliases.find(name); it != kAliases.end()) return it->second;
  return name;
}

struct Column {
  std::string_view query;  // canonical name
  std::string_view unit;   // suffix stripped when present
  ChannelKind kind;
  double scale;             // to channel units (percent -> fraction)
  std::string_view suffix;  // channel id suffix
};
constexpr std::array kImported = {
    Column{"power.draw", "W", ChannelKind::kPower, 1.0, "power"},
    Column{"utilization.gpu", "%", ChannelKind::kUtilisation, 0.01, "utilisation"},
    Column{"temperature.gpu", "C", ChannelKind::kTemperature, 1.0, "temperature"},
};

struct GpuSamples {
  std::string name;
  std::array<std::vector<RawSample>, kImported.size()> samples;
};

// The columns: from the first non-blank line when it is a header, else the options' list.
struct LogLayout {
  std::vector<std::string> columns;
  std::size_t first_data = 0;  // line number of the first data line
  std::string rule;            // how the columns were found, for the provenance
  std::optional<std::size_t> column(std::string_view name) const {
    const auto it = std::find(columns.begin(), columns.end(), name);
    if (it == columns.end()) return std::nullopt;
    return static_cast<std::size_t>(it - columns.begin());
  }
};

// The layout `first`, the first line with content, gives.
LogLayout find_layout(const TextLine& first, const PowerLogOptions& options) {
  LogLayout layout;
  const auto fields = split_fields(first.text, ',');
  if (canonical_column(fields[0]) == "timestamp") {
    for (std::string_view f : fields) layout.columns.push_back(canonical_column(f));
    layout.first_data = first.number + 1;
    layout.rule = fmt::format("header on line {}", first.number);
  } else {
    layout.columns = options.noheader_columns;
    layout.first_data = first.number;
    layout.rule = fmt::format("no header: columns {}", fmt::join(layout.columns, ","));
  }
  return layout;
}

// What the data lines held, per GPU, and what was left out of them.
struct LogRows {
  std::map<std::string, GpuSamples> gpus;
  std::size_t unavailable = 0;                                // values marked [N/A] …
  std::array<std::size_t, kImported.size()> unit_suffixes{};  // values that carried a suffix
  std::size_t repeated_headers = 0;
};

// Reads a data line; a bad field is an error naming file:line, field and value, except on a last
// line a killed logger may have cut (then a warning, and the line contributes nothing).
Status read_row(const TextLine& line, LineReader& lines, const LogLayout& layout,
                const std::string& path, const PowerLogOptions& options, LogRows& rows,
                std::vector<std::string>& warnings) {
  const std::size_t timestamp_col = *layout.column("timestamp");
  const auto index_col = layout.column("index");
  const auto name_col = layout.column("name");
  const auto fields = split_fields(line.text, ',');
  const auto reject = [&](std::string_view field, std::string_view value,
                          std::string_view problem) {
    return trace_text::reject_field(warnings, lines, trace_text::has_content, path, line.number,
                                    field, value, problem);
  };
  if (canonical_column(fields[0]) == "timestamp") {
    ++rows.repeated_headers;
    return Status::Ok();
  }
  if (fields.size() != layout.columns.size()) {
    if (auto e = reject("fields", std::to_string(fields.size()),
                        fmt::format("expected {} fields", layout.columns.size()))) {
      return *e;
    }
    return Status::Ok();
  }
  const auto t = parse_wall_clock_ns(fields[timestamp_col], options.utc_offset_s);
  if (!t) {
    if (auto e = reject("timestamp", fields[timestamp_col], "not a YYYY/MM/DD hh:mm:ss.fff time")) {
      return *e;
    }
    return Status::Ok();
  }
  // Parse every imported field first so that a truncated line contributes nothing.
  std::array<std::optional<double>, kImported.size()> values;
  bool complete = true;
  for (std::size_t c = 0; c < kImported.size() && complete; ++c) {
    const auto col = layout.column(kImported[c].query);
    if (!col) continue;
    const std::string_view field = fields[*col];
    if (trace_text::is_unavailable_marker(field)) {
      ++rows.unavailable;
      continue;
    }
    const auto value = trace_text::parse_number_with_unit(field, kImported[c].unit);
    if (!value) {
      if (auto e = reject(kImported[c].query, field,
                          fmt::format("not a number (unit '{}' allowed)", kImported[c].unit))) {
        return *e;
      }
      complete = false;
      continue;
    }
    if (!field.empty() && !std::isdigit(static_cast<unsigned char>(field.back())))
      ++rows.unit_suffixes[c];
    values[c] = *value * kImported[c].scale;
  }
  if (!complete) return Status::Ok();
  const std::string gpu = index_col ? std::string(fields[*index_col]) : "0";
  GpuSamples& samples = rows.gpus[gpu];
  if (name_col && samples.name.empty()) samples.name = std::string(fields[*name_col]);
  for (std::size_t c = 0; c < kImported.size(); ++c) {
    if (values[c]) samples.samples[c].push_back(RawSample{*t, *values[c], line.number});
  }
  return Status::Ok();
}

// One series per GPU and imported column, on the monotonic axis.
Status add_series(LogRows& rows, const LogLayout& layout, const std::string& path,
                  const PowerLogOptions& options, PowerLog& trace) {
  for (auto& [gpu, samples] : rows.gpus) {
    for (std::size_t c = 0; c < kImported.size(); ++c) {
      std::vector<RawSample>& raw = samples.samples[c];
      if (raw.empty()) continue;
      for (RawSample& s : raw) s.t_ns += trace.offset_ns;
      Channel channel;
      channel.id = fmt::format("nvidia-smi:gpu{}:{}", gpu, kImported[c].suffix);
      channel.source = "nvidia-smi-log";
      channel.device = fmt::format("gpu{}", gpu);
      channel.label = samples.name;
      channel.domain = "gpu";
      channel.kind = kImported[c].kind;
      channel.provenance = Provenance::kImported;
      trace_text::SeriesRules rules;
      const std::string extra = fmt::format(
          "{} column '{}'{}{}", layout.rule, kImported[c].query,
          rows.unit_suffixes[c] > 0 ? fmt::format(", unit suffix '{}' stripped", kImported[c].unit)
                                    : "",
          trace.warnings.empty() ? "" : fmt::format(", {} warnings", trace.warnings.size()));
      JP_TRY(Series series, trace_text::build_series(channel, raw, path, options.gap_factor,
                                                     options.min_gap_ns, rules));
      series.channel().provenance_detail =
          fmt::format("nvidia-smi log {}: {}", path,
                      trace_text::describe_rules(options, trace.offset_ns, rules, extra));
      series.channel().measured_period_ns = series.measured_update_period_ns();
      if (rules.implausible) trace.warnings.push_back(*rules.implausible);
      if (rules.gaps > 0 && c == 0) {
        trace.warnings.push_back(fmt::format("{}: {} gaps in the power samples", path, rules.gaps));
      }
      trace.series.push_back(std::move(series));
    }
  }
  return Status::Ok();
}

}  // namespace

Result<PowerLog> read_nvidia_smi_log(const std::string& path, const PowerLogOptions& options) {
  JP_TRY(LineReader lines, LineReader::open(path, "file"));
  std::optional<LogLayout> layout;
  LogRows rows;
  PowerLog trace;
  trace.path = path;
  trace.format = "nvidia-smi";
  JP_RETURN_IF_ERROR(for_each_line(lines, [&](const TextLine& line) -> Status {
    if (!trace_text::has_content(line.text)) return Status::Ok();
    if (!layout) {
      layout = find_layout(line, options);
      if (!layout->column("timestamp") || !layout->column("power.draw")) {
        return invalid_input(path, "columns", fmt::format("{}", fmt::join(layout->columns, ",")),
                             "an nvidia-smi log needs the timestamp and power.draw columns");
      }
      if (line.number < layout->first_data) return Status::Ok();
    }
    return read_row(line, lines, *layout, path, options, rows, trace.warnings);
  }));
  if (!layout) return invalid_input(path, "content", "", "the file is empty");
  if (rows.unavailable > 0) {
    trace.warnings.push_back(
        fmt::format("{}: {} values marked unavailable ([N/A]…) left out", path, rows.unavailable));
  }
  if (rows.gpus.empty() || std::all_of(rows.gpus.begin(), rows.gpus.end(),
                                       [](const auto& g) { return g.second.samples[0].empty(); })) {
    return invalid_input(path, "power.draw", "", "no power samples in the log");
  }
  TimeNs first_ns = std::numeric_limits<TimeNs>::max();
  for (const auto& [gpu, samples] : rows.gpus) {
    for (const auto& column : samples.samples) {
      if (!column.empty()) first_ns = std::min(first_ns, column.front().t_ns);
    }
  }
  trace.offset_ns = trace_text::resolve_offset(options, first_ns);
  JP_RETURN_IF_ERROR(add_series(rows, *layout, path, options, trace));
  if (rows.repeated_headers > 0) {
    trace.warnings.push_back(
        fmt::format("{}: {} repeated header lines skipped", path, rows.repeated_headers));
  }
  return trace;
}

}  // namespace jouleprof
