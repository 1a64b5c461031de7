// Field-level helpers shared by the trace readers, on top of core/line_reader.hpp's lines and
// core/csv.hpp's fields: numbers with unit suffixes, unavailable markers, truncated last lines, and
// the gap/duplicate rules applied to every imported series.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/line_reader.hpp"
#include "jouleprof/result.hpp"
#include "jouleprof/series.hpp"

namespace jouleprof::trace_text {

// "119.17 W" -> 119.17 when the suffix is `unit` (or absent); nullopt otherwise. Numbers by the
// one rule of core/parse.hpp (to_number, to_int64).
std::optional<double> parse_number_with_unit(std::string_view field, std::string_view unit);

// nvidia-smi's markers for an unreadable value: [N/A], [Not Supported], [Unknown Error], …
bool is_unavailable_marker(std::string_view field);

// "file:line" for messages.
std::string where(const std::string& path, std::size_t line);

// Whether a line of an nvidia-smi log or meter CSV holds more than whitespace.
bool has_content(std::string_view line);

// A bad field on `line`, the last one `lines` gave, is a truncation when no line with content
// (`has_content`) follows: a logger killed mid-write cut it, and it is dropped with a warning
// (nullopt). Anywhere else it is an error naming file:line, field and value. Telling which reads
// on to the next line with content, so the line's text, `value` included, is not valid after.
std::optional<Error> reject_field(std::vector<std::string>& warnings, LineReader& lines,
                                  bool (*has_content)(std::string_view line),
                                  const std::string& path, std::size_t line, std::string_view field,
                                  std::string_view value, std::string_view problem);

// One sample as read from a file, before it becomes part of a Series.
struct RawSample {
  TimeNs t_ns = 0;
  double value = 0.0;
  std::size_t line = 0;
};

// Builds a Series from samples in file order: equal consecutive stamps are merged into their
// mean (counted in `rules`), a stamp earlier than its predecessor is an error naming the file
// and line, intervals longer than both gap_factor × the median interval and min_gap_ns become
// Gaps, and implausible readings are left out as gaps (sources/plausibility.hpp).
struct SeriesRules {
  std::size_t duplicates_merged = 0;
  std::size_t gaps = 0;
  std::optional<std::string> implausible;  // the warning, when readings were left out
};
Result<Series> build_series(Channel channel, const std::vector<RawSample>& samples,
                            const std::string& path, double gap_factor, TimeNs min_gap_ns,
                            SeriesRules& rules);

}  // namespace jouleprof::trace_text

namespace jouleprof {
struct PowerLogOptions;
}

namespace jouleprof::trace_text {

// The offset from the trace clock to the monotonic axis (see PowerLogOptions).
TimeNs resolve_offset(const PowerLogOptions& options, TimeNs first_trace_ns);

// "offset_ns=…, utc_offset_s=…" plus the rules that changed data, for provenance details.
std::string describe_rules(const PowerLogOptions& options, TimeNs offset_ns,
                           const SeriesRules& rules, std::string_view extra);

}  // namespace jouleprof::trace_text
