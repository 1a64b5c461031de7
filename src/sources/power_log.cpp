#include "sources/power_log.hpp"

#include <fmt/format.h>

#include <array>

#include "core/csv.hpp"
#include "core/line_reader.hpp"
#include "core/parse.hpp"
#include "core/time_range.hpp"
#include "sources/trace_text.hpp"

namespace jouleprof {

const Series* PowerLog::find(ChannelKind kind) const {
  for (const Series& s : series) {
    if (s.channel().kind == kind) return &s;
  }
  return nullptr;
}

namespace {

// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil).
std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d) {
  y -= m <= 2 ? 1 : 0;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

bool read_digits(std::string_view& s, std::size_t count, unsigned& out) {
  if (s.size() < count) return false;
  out = 0;
  for (std::size_t i = 0; i < count; ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    out = out * 10 + static_cast<unsigned>(s[i] - '0');
  }
  s.remove_prefix(count);
  return true;
}

bool expect(std::string_view& s, std::string_view one_of) {
  if (s.empty() || one_of.find(s.front()) == std::string_view::npos) return false;
  s.remove_prefix(1);
  return true;
}

}  // namespace

std::optional<TimeNs> parse_wall_clock_ns(std::string_view text, std::int64_t utc_offset_s) {
  std::string_view s = trim_ascii_space(text);
  unsigned year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
  if (!read_digits(s, 4, year) || !expect(s, "-/") || !read_digits(s, 2, month) ||
      !expect(s, "-/") || !read_digits(s, 2, day) || !expect(s, " T") || !read_digits(s, 2, hour) ||
      !expect(s, ":") || !read_digits(s, 2, minute) || !expect(s, ":") ||
      !read_digits(s, 2, second)) {
    return std::nullopt;
  }
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 60) {
    return std::nullopt;
  }
  TimeNs fraction_ns = 0;
  if (!s.empty() && s.front() == '.') {
    s.remove_prefix(1);
    TimeNs scale = kNsPerS;
    if (s.empty()) return std::nullopt;
    while (!s.empty() && s.front() >= '0' && s.front() <= '9') {
      scale /= 10;
      fraction_ns += scale * (s.front() - '0');
      s.remove_prefix(1);
    }
  }
  if (!s.empty()) return std::nullopt;
  const std::int64_t seconds =
      days_from_civil(year, month, day) * 86400 + hour * 3600 + minute * 60 + second - utc_offset_s;
  // Years before 1824 or after 2115 are beyond what a TimeNs can hold (with room for offsets).
  if (!checked_s_to_ns(static_cast<double>(seconds))) return std::nullopt;
  return seconds * kNsPerS + fraction_ns;
}

Result<PowerLog> read_power_log(const std::string& path, PowerLogFormat format,
                                const PowerLogOptions& options) {
  if (format == PowerLogFormat::kAuto) {
    JP_TRY(LineReader lines, LineReader::open(path, "file"));
    std::string_view first;
    while (first.empty()) {
      JP_TRY(const std::optional<TextLine> line, lines.next());
      if (!line) break;
      first = trim_ascii_space(line->text);
    }
    if (first.starts_with("# started on") || first.find(";Joules;") != std::string_view::npos) {
      format = PowerLogFormat::kPerfStat;
    } else if (first.starts_with("Time(")) {
      format = PowerLogFormat::kMeterCsv;
    } else if (first.starts_with("timestamp") ||
               parse_wall_clock_ns(split_fields(first, ',')[0], 0)) {
      format = PowerLogFormat::kNvidiaSmi;
    } else {
      return invalid_input(path + ":1", "header", first.substr(0, 60),
                           "not an nvidia-smi log, perf stat -I output or meter CSV");
    }
  }
  switch (format) {
    case PowerLogFormat::kNvidiaSmi:
      return read_nvidia_smi_log(path, options);
    case PowerLogFormat::kPerfStat:
      return read_perf_stat_log(path, options);
    case PowerLogFormat::kMeterCsv:
      return read_meter_csv(path, options);
    case PowerLogFormat::kAuto:
      break;
  }
  return Error(ErrorCode::kInternal, "read_trace: unknown format");
}

namespace trace_text {

TimeNs resolve_offset(const PowerLogOptions& options, TimeNs first_trace_ns) {
  return options.first_sample_at_ns ? *options.first_sample_at_ns - first_trace_ns
                                    : options.offset_ns;
}

std::string describe_rules(const PowerLogOptions& options, TimeNs offset_ns,
                           const SeriesRules& rules, std::string_view extra) {
  std::string text = fmt::format("offset_ns={} (trace clock + offset = monotonic)", offset_ns);
  if (!extra.empty()) text += fmt::format("; {}", extra);
  text += fmt::format("; utc_offset_s={}", options.utc_offset_s);
  if (rules.duplicates_merged > 0) {
    text += fmt::format("; {} duplicate timestamps merged (mean)", rules.duplicates_merged);
  }
  if (rules.gaps > 0) {
    text += fmt::format("; {} gaps (> {} x median interval and > {} s) not integrated", rules.gaps,
                        options.gap_factor, ns_to_s(options.min_gap_ns));
  }
  return text;
}

}  // namespace trace_text

}  // namespace jouleprof
