// `perf stat -I N -x ';' -e power/energy-pkg/,power/energy-ram/` output:
//   <seconds since start>;<value>;<unit>;<event>;<run time ns>;<percent>;;
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <map>

#include "core/csv.hpp"
#include "core/parse.hpp"
#include "core/time_range.hpp"
#include "sources/power_log.hpp"
#include "sources/trace_text.hpp"

namespace jouleprof {
namespace {

using trace_text::RawSample;

// "# started on Thu Apr 25 16:00:52 2024" -> realtime ns (local time at utc_offset_s).
std::optional<TimeNs> parse_perf_start(std::string_view line, std::int64_t utc_offset_s) {
  constexpr std::string_view kPrefix = "# started on ";
  if (!line.starts_with(kPrefix)) return std::nullopt;
  const auto fields = split_fields(line.substr(kPrefix.size()), ' ');
  std::vector<std::string_view> words;
  for (std::string_view f : fields) {
    if (!f.empty()) words.push_back(f);
  }
  if (words.size() != 5) return std::nullopt;  // weekday month day time year
  static constexpr std::array<std::string_view, 12> kMonths = {
      "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  const auto month = std::find(kMonths.begin(), kMonths.end(), words[1]);
  const auto day = to_number(words[2]);
  if (month == kMonths.end() || !day || !(*day >= 1 && *day <= 31) || words[4].size() != 4 ||
      words[3].size() != 8) {
    return std::nullopt;
  }
  const std::string stamp =
      fmt::format("{}-{:02d}-{:02d} {}", words[4], static_cast<int>(month - kMonths.begin()) + 1,
                  static_cast<int>(*day), words[3]);
  return parse_wall_clock_ns(stamp, utc_offset_s);
}

// perf's event name -> RAPL domain.
std::string domain_of(std::string_view event) {
  static const std::map<std::string, std::string, std::less<>> kDomains = {
      {"energy-pkg", "package"},
      {"energy-ram", "dram"},
      {"energy-cores", "core"},
      {"energy-gpu", "uncore"},
      {"energy-psys", "psys"}};
  for (const auto& [name, domain] : kDomains) {
    if (event.find(name) != std::string_view::npos) return domain;
  }
  return std::string(event);
}

// Lines of perf's output other than blanks and '#' comments.
bool is_interval(std::string_view line) {
  const std::string_view text = trim_ascii_space(line);
  return !text.empty() && text.front() != '#';
}

struct EventSamples {
  std::vector<RawSample> samples;  // cumulative J at each interval end (trace clock)
  double total_j = 0.0;
  std::size_t not_counted = 0;
};

}  // namespace

Result<PowerLog> read_perf_stat_log(const std::string& path, const PowerLogOptions& options) {
  JP_TRY(LineReader lines, LineReader::open(path, "file"));
  std::optional<TimeNs> start_ns = options.perf_start_realtime_ns;
  std::string start_rule = start_ns ? "start time given" : "";
  PowerLog trace;
  trace.path = path;
  trace.format = "perf-stat";
  std::map<std::string, EventSamples> events;
  std::vector<std::string> event_order;

  bool any_interval = false;
  JP_RETURN_IF_ERROR(for_each_line(lines, [&](const TextLine& line) -> Status {
    const std::string_view text = trim_ascii_space(line.text);
    if (text.empty()) return Status::Ok();
    if (text.front() == '#') {
      if (!start_ns) {
        start_ns = parse_perf_start(text, options.utc_offset_s);
        if (start_ns) start_rule = fmt::format("start from the header on line {}", line.number);
      }
      return Status::Ok();
    }
    any_interval = true;
    const auto fields = split_fields(text, ';');
    const auto reject = [&](std::string_view field, std::string_view value,
                            std::string_view problem) {
      return trace_text::reject_field(trace.warnings, lines, is_interval, path, line.number, field,
                                      value, problem);
    };
    if (fields.size() < 4) {
      if (auto e =
              reject("fields", std::to_string(fields.size()), "expected at least 4 (-x ';')")) {
        return *e;
      }
      return Status::Ok();
    }
    const auto seconds = to_number(fields[0]);
    if (!seconds || *seconds < 0 || !checked_s_to_ns(*seconds)) {
      if (auto e = reject("time", fields[0], "not seconds since perf started (-I output)"))
        return *e;
      return Status::Ok();
    }
    const std::string event(fields[3]);
    if (event.empty()) {
      if (auto e = reject("event", fields[3], "missing event name")) return *e;
      return Status::Ok();
    }
    EventSamples& samples = events[event];
    if (samples.samples.empty() && samples.not_counted == 0) event_order.push_back(event);
    const TimeNs t_ns = static_cast<TimeNs>(*seconds * 1e9 + 0.5);
    if (fields[1].starts_with("<")) {  // <not counted>, <not supported>
      ++samples.not_counted;
      return Status::Ok();
    }
    const auto joules = to_number(fields[1]);
    if (!joules || *joules < 0) {
      if (auto e = reject("value", fields[1], "not a non-negative number of Joules")) return *e;
      return Status::Ok();
    }
    if (fields[2] != "Joules" && fields[2] != "J") {
      if (auto e = reject("unit", fields[2], "expected Joules (an energy event)")) return *e;
      return Status::Ok();
    }
    samples.total_j += *joules;
    samples.samples.push_back(RawSample{t_ns, samples.total_j, line.number});
    return Status::Ok();
  }));
  if (!any_interval) return invalid_input(path, "content", "", "no perf stat intervals");
  if (events.empty()) return invalid_input(path, "event", "", "no energy intervals in the file");

  const TimeNs start_realtime_ns = start_ns.value_or(0);
  if (!start_ns) {
    start_rule = "start time unknown: perf's seconds used as they are";
    trace.warnings.push_back(fmt::format("{}: no '# started on' header; times are relative", path));
  }
  trace.offset_ns = trace_text::resolve_offset(options, start_realtime_ns);

  bool has_package = events.count("power/energy-pkg/") > 0;
  for (const std::string& event : event_order) {
    EventSamples& ev = events[event];
    if (ev.samples.empty()) {
      trace.warnings.push_back(fmt::format("{}: event {} was never counted", path, event));
      continue;
    }
    // Interval lengths: the last one is usually cut short when perf stops.
    std::vector<TimeNs> intervals;
    TimeNs previous = 0;
    for (const RawSample& s : ev.samples) {
      intervals.push_back(s.t_ns - previous);
      previous = s.t_ns;
    }
    std::vector<TimeNs> sorted = intervals;
    std::sort(sorted.begin(), sorted.end());
    const TimeNs median_ns = sorted[sorted.size() / 2];
    std::string partial_rule;
    if (intervals.size() > 1 && intervals.back() < median_ns - median_ns / 10) {
      partial_rule =
          fmt::format(", last interval partial ({:.3f} s of {:.3f} s) kept at its true end",
                      ns_to_s(intervals.back()), ns_to_s(median_ns));
    }
    std::vector<RawSample> raw;
    raw.reserve(ev.samples.size() + 1);
    raw.push_back(RawSample{start_realtime_ns + trace.offset_ns, 0.0, 0});
    for (const RawSample& s : ev.samples) {
      raw.push_back(RawSample{start_realtime_ns + s.t_ns + trace.offset_ns, s.value, s.line});
    }
    Channel channel;
    channel.id = fmt::format("perf-stat:{}", domain_of(event));
    channel.source = "perf-stat-log";
    channel.device = "cpu";
    channel.domain = domain_of(event);
    channel.kind = ChannelKind::kEnergyCounter;
    channel.provenance = Provenance::kImported;
    channel.nominal_period_ns = median_ns;
    if (has_package && (channel.domain == "core" || channel.domain == "uncore")) {
      channel.parent_id = "perf-stat:package";
    }
    trace_text::SeriesRules rules;
    JP_TRY(Series series, trace_text::build_series(channel, raw, path, options.gap_factor,
                                                   options.min_gap_ns, rules));
    std::string extra = fmt::format(
        "event {}, Joules per interval summed into a counter from 0 J "
        "at perf's start; {}{}",
        event, start_rule, partial_rule);
    if (ev.not_counted > 0) {
      extra +=
          fmt::format(", {} intervals <not counted> (their energy is missing)", ev.not_counted);
      trace.warnings.push_back(
          fmt::format("{}: event {}: {} intervals not counted", path, event, ev.not_counted));
    }
    series.channel().provenance_detail =
        fmt::format("perf stat -I log {}: {}", path,
                    trace_text::describe_rules(options, trace.offset_ns, rules, extra));
    if (rules.implausible) trace.warnings.push_back(*rules.implausible);
    trace.series.push_back(std::move(series));
  }
  return trace;
}

}  // namespace jouleprof
