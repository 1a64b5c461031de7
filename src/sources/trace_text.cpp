#include "sources/trace_text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "core/parse.hpp"
#include "sources/plausibility.hpp"

namespace jouleprof::trace_text {

std::optional<double> parse_number_with_unit(std::string_view field, std::string_view unit) {
  field = trim_ascii_space(field);
  if (!unit.empty() && field.size() >= unit.size() &&
      field.substr(field.size() - unit.size()) == unit) {
    field.remove_suffix(unit.size());
  }
  return to_number(field);
}

bool is_unavailable_marker(std::string_view field) {
  field = trim_ascii_space(field);
  return field.size() >= 2 && field.front() == '[' && field.back() == ']';
}

std::string where(const std::string& path, std::size_t line) {
  return fmt::format("{}:{}", path, line);
}

bool has_content(std::string_view line) { return !trim_ascii_space(line).empty(); }

std::optional<Error> reject_field(std::vector<std::string>& warnings, LineReader& lines,
                                  bool (*has_content)(std::string_view line),
                                  const std::string& path, std::size_t line, std::string_view field,
                                  std::string_view value, std::string_view problem) {
  // Both are spelled out before reading on moves the line's text.
  Error error = invalid_input(where(path, line), field, value, problem);
  std::string truncation = fmt::format("{}: last line dropped as truncated ({} '{}': {})",
                                       where(path, line), field, value, problem);
  const Result<bool> last = lines.nothing_follows(has_content);
  if (!last.ok()) return last.error();
  if (!*last) return error;
  warnings.push_back(std::move(truncation));
  return std::nullopt;
}

Result<Series> build_series(Channel channel, const std::vector<RawSample>& samples,
                            const std::string& path, double gap_factor, TimeNs min_gap_ns,
                            SeriesRules& rules) {
  std::vector<RawSample> merged;
  merged.reserve(samples.size());
  std::size_t run_length = 1;
  for (const RawSample& s : samples) {
    if (!merged.empty() && s.t_ns < merged.back().t_ns) {
      return invalid_input(where(path, s.line), "timestamp", std::to_string(s.t_ns),
                           fmt::format("earlier than the sample on line {}", merged.back().line));
    }
    if (!merged.empty() && s.t_ns == merged.back().t_ns) {
      // Running mean of the samples that share this stamp.
      ++run_length;
      merged.back().value += (s.value - merged.back().value) / static_cast<double>(run_length);
      ++rules.duplicates_merged;
      continue;
    }
    run_length = 1;
    merged.push_back(s);
  }

  Series series(std::move(channel));
  for (const RawSample& s : merged) {
    if (Status st = series.append(s.t_ns, s.value); !st) {
      return st.error().with_context(where(path, s.line));
    }
  }
  if (merged.size() >= 3 && gap_factor > 0.0) {
    std::vector<TimeNs> intervals;
    for (std::size_t i = 1; i < merged.size(); ++i)
      intervals.push_back(merged[i].t_ns - merged[i - 1].t_ns);
    std::vector<TimeNs> sorted = intervals;
    std::nth_element(sorted.begin(),
                     sorted.begin() + static_cast<std::ptrdiff_t>(sorted.size() / 2), sorted.end());
    const double limit_ns = std::max(gap_factor * static_cast<double>(sorted[sorted.size() / 2]),
                                     static_cast<double>(min_gap_ns));
    for (std::size_t i = 0; i < intervals.size(); ++i) {
      if (static_cast<double>(intervals[i]) > limit_ns) {
        series.add_gap(
            Gap{merged[i].t_ns, merged[i + 1].t_ns,
                fmt::format("no samples between lines {} and {} of {} ({:.3f} s)", merged[i].line,
                            merged[i + 1].line, path, ns_to_s(intervals[i]))});
        ++rules.gaps;
      }
    }
  }
  rules.implausible = enforce_plausibility(series, path);
  return series;
}

}  // namespace jouleprof::trace_text
