// Reports: one registry of writers keyed by format name, each turning a Profile into a file a
// person opens — a text tree, the profile JSON, a flat CSV, a Chrome/Perfetto trace, an SVG
// flame graph (also differential, against a baseline profile) and a self-contained HTML page.
//
//   jouleprof::ReportOptions options;
//   auto text = jouleprof::render_report("flamegraph", profile, options);
//   if (!text) { ... text.error().message() ... }
//
// Writers only present figures that the profile already holds; they never compute energy
// (power over time is the profile's own series, counters differentiated between updates).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "jouleprof/profile.hpp"
#include "jouleprof/result.hpp"

namespace jouleprof {

struct ReportOptions {
  // The profile to compare against (`--diff OTHER`); only formats with `supports_diff` accept it.
  const Profile* baseline = nullptr;
  // Rows in the HTML report's "top operators" table.
  std::size_t top_operators = 20;
  // Power points per channel in the HTML chart: longer series are averaged into this many
  // buckets so that the page stays small (each bucket keeps its mean power).
  std::size_t html_power_points = 1500;
  // Power points per channel in a trace; longer series are averaged into this many buckets.
  std::size_t trace_power_points = 200'000;
  // Spans drawn in the HTML timeline; the longest are kept, the rest counted in a note.
  std::size_t html_max_spans = 4000;
};

struct ReportFormat {
  std::string_view name;         // what `--format` takes
  std::string_view extension;    // suggested file extension, without the dot
  std::string_view description;  // one line for --help
  bool supports_diff = false;    // accepts ReportOptions::baseline
  Result<std::string> (*write)(const Profile& profile, const ReportOptions& options);
};

// Every format, in a fixed order.
const std::vector<ReportFormat>& report_formats();
// nullptr when no format has this name.
const ReportFormat* find_report_format(std::string_view name);

// Renders `profile` in `format`; an unknown format, or a baseline given to a format without a
// differential form, is an invalid-input error naming the format.
Result<std::string> render_report(std::string_view format, const Profile& profile,
                                  const ReportOptions& options = {});

// render_report + write to `path` (created or replaced).
Status write_report(std::string_view format, const Profile& profile, const ReportOptions& options,
                    const std::string& path);

}  // namespace jouleprof
