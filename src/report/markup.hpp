// Small text helpers shared by the writers: escaping for XML/HTML and CSV, and human-readable
// figures with their units.
#pragma once

#include <string>
#include <string_view>

#include "jouleprof/clock.hpp"
#include "jouleprof/timeline.hpp"

namespace jouleprof::report {

// &, <, >, " and ' replaced by entities; control characters other than tab/newline dropped
// (they are not allowed in XML 1.0).
std::string xml_escape(std::string_view text);

// Quoted (RFC 4180) when the field holds a comma, quote, CR or LF.
std::string csv_field(std::string_view text);

// "12.3 J", "1.25 kJ", "340 mJ", "2.1 µJ": three significant digits.
std::string format_energy(double joules);
// "1.50 s", "12.0 ms", "3.2 µs", "2 min 05 s".
std::string format_duration(TimeNs ns);
// "12.5 %"
std::string format_share(double fraction);

// The fill colour of a span category (flame graph, HTML timeline): one fixed hue per category.
std::string_view category_colour(SpanCategory category);

}  // namespace jouleprof::report
