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

// How the `text` format lays a profile out. It is the one text rendering of a profile: `jouleprof
// run`, `profile`, `attribute` and `report` and the Python package's table() all print it, each
// choosing its sections. Sections, in the order printed: the headline (what ran, how long, the
// total and where it came from), channels, epochs, top operators, the tree, attribution methods,
// warnings (each printed once).
struct TextViewOptions {
  // Columns of the output: long names are shortened (template and parameter lists collapsed,
  // then cut in the middle) and sentences wrapped to fit. The full names stay in every other
  // format.
  std::size_t width = 100;
  int max_depth = 4;               // tree levels below the root; -1 = every level
  std::size_t max_children = 8;    // per node, largest first; the rest as one "(N more, X J)"
  std::size_t max_rows = 40;       // tree rows, then one "(N more rows, X J)" line
  double min_share = 0.0;          // children below this fraction of their parent go into "more"
  std::size_t top_operators = 10;  // rows of the top-operator table (0: no table)
  bool full = false;               // every level, child and row, names unshortened, no width limit

  bool headline = true;
  bool channels = true;
  bool epochs = true;
  bool tree = true;  // the top operators and the tree
  bool attribution = true;
  bool attribution_diagnostics = false;  // each method's diagnostics (rank, condition, …)
  bool warnings = true;
  // Lines the caller adds under the headline (e.g. how a trace's clock was mapped).
  std::vector<std::string> notes;
};

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
  // The `text` format's layout and sections.
  TextViewOptions text;
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
