// Monsoon-style power-meter CSV: `Time(ms),Main(mA),Main Voltage(V),` (a trailing comma on
// every line). Power = current × voltage.
#include <fmt/format.h>

#include "core/csv.hpp"
#include "core/parse.hpp"
#include "core/time_range.hpp"
#include "sources/power_log.hpp"
#include "sources/trace_text.hpp"

namespace jouleprof {
namespace {

// Above this, a "ms" time column holds epoch microseconds (see power_log.hpp).
constexpr double kEpochMicrosecondsAbove = 1e14;
constexpr double kMilliampVoltToWatt = 1e-3;

}  // namespace

Result<PowerLog> read_meter_csv(const std::string& path, const PowerLogOptions& options) {
  JP_TRY(LineReader lines, LineReader::open(path, "file"));
  JP_TRY(const std::optional<TextLine> first, lines.next());
  if (!first || !trim_ascii_space(first->text).starts_with("Time")) {
    return invalid_input(path + ":1", "header", first ? first->text.substr(0, 60) : "",
                         "expected 'Time(ms),Main(mA),Main Voltage(V)'");
  }
  const auto header = split_fields(first->text, ',');
  if (header.size() < 3 || header[1].find("mA") == std::string_view::npos ||
      header[2].find("(V)") == std::string_view::npos) {
    return invalid_input(path + ":1", "header", first->text.substr(0, 60),
                         "expected current in mA (column 2) and voltage in V (column 3)");
  }

  PowerLog trace;
  trace.path = path;
  trace.format = "meter-csv";
  std::vector<trace_text::RawSample> raw;
  std::optional<bool> microseconds;
  JP_RETURN_IF_ERROR(for_each_line(lines, [&](const TextLine& line) -> Status {
    if (!trace_text::has_content(line.text)) return Status::Ok();
    const auto fields = split_fields(line.text, ',');
    std::optional<double> time, current_ma, voltage_v;
    std::string_view bad_field;
    std::string_view bad_value;
    if (fields.size() < 3) {
      bad_field = "fields";
    } else if (!(time = to_number(fields[0]))) {
      bad_field = "Time";
      bad_value = fields[0];
    } else if (!(current_ma = to_number(fields[1]))) {
      bad_field = "Main(mA)";
      bad_value = fields[1];
    } else if (!(voltage_v = to_number(fields[2]))) {
      bad_field = "Main Voltage(V)";
      bad_value = fields[2];
    }
    if (!bad_field.empty()) {
      const std::string value =
          bad_field == "fields" ? std::to_string(fields.size()) : std::string(bad_value);
      // Both are spelled out before reading on moves the line's text.
      Error error = invalid_input(
          trace_text::where(path, line.number), bad_field, value,
          bad_field == "fields" ? "expected Time, current and voltage" : "not a number");
      std::string truncation = fmt::format("{}: last line dropped as truncated ({} '{}')",
                                           trace_text::where(path, line.number), bad_field, value);
      JP_TRY(const bool last, lines.nothing_follows(trace_text::has_content));
      if (!last) return error;
      trace.warnings.push_back(std::move(truncation));
      return Status::Ok();
    }
    if (!microseconds) microseconds = *time > kEpochMicrosecondsAbove;
    if (!checked_s_to_ns(*time * (*microseconds ? 1e-6 : 1e-3))) {
      return invalid_input(trace_text::where(path, line.number), "Time", std::string(fields[0]),
                           "not a time any clock can show");
    }
    // Integral stamps are converted exactly: 1.7e15 µs in ns is beyond a double's 53 bits.
    TimeNs t_ns = 0;
    if (const auto whole = to_int64(fields[0])) {
      t_ns = *whole * (*microseconds ? kNsPerUs : kNsPerMs);
    } else {
      t_ns = static_cast<TimeNs>(*time * (*microseconds ? 1e3 : 1e6));
    }
    raw.push_back(
        trace_text::RawSample{t_ns, *current_ma * *voltage_v * kMilliampVoltToWatt, line.number});
    return Status::Ok();
  }));
  if (raw.empty()) return invalid_input(path, "content", "", "no meter samples");
  trace.offset_ns = trace_text::resolve_offset(options, raw.front().t_ns);
  for (auto& s : raw) s.t_ns += trace.offset_ns;

  Channel channel;
  channel.id = "meter:main";
  channel.source = "meter-csv";
  channel.device = "meter main channel";
  channel.domain = "system";
  channel.kind = ChannelKind::kPower;
  channel.provenance = Provenance::kImported;
  trace_text::SeriesRules rules;
  JP_TRY(Series series, trace_text::build_series(channel, raw, path, options.gap_factor,
                                                 options.min_gap_ns, rules));
  const std::string extra = fmt::format(
      "power = Main(mA) x Main Voltage(V) / 1000; Time column read as {}",
      microseconds.value_or(false) ? "epoch microseconds (values > 1e14, despite the 'ms' label)"
                                   : "milliseconds");
  series.channel().provenance_detail = fmt::format(
      "meter CSV {}: {}", path, trace_text::describe_rules(options, trace.offset_ns, rules, extra));
  if (rules.gaps > 0) trace.warnings.push_back(fmt::format("{}: {} gaps", path, rules.gaps));
  if (rules.implausible) trace.warnings.push_back(*rules.implausible);
  trace.series.push_back(std::move(series));
  return trace;
}

}  // namespace jouleprof
