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

// Three significant digits with an SI prefix (p … P): format_si(0.000684, "J") = "684 µJ",
// format_si(4561, "J") = "4.56 kJ". A value that rounds to zero at picounits prints "0 J", never
// "-0.00"; NaN and infinities print "invalid" (the profile's warnings say which figure).
std::string format_si(double value, std::string_view unit);
// format_si in joules and watts.
std::string format_energy(double joules);
std::string format_power(double watts);
// "1.50 s", "12.0 ms", "3.20 µs", "2 min 05 s".
std::string format_duration(TimeNs ns);
// "12.5 %"; "0.0 %" for what rounds to zero, never "-0.0 %".
std::string format_share(double fraction);

// The fill colour of a span category (flame graph, HTML timeline): one fixed hue per category.
std::string_view category_colour(SpanCategory category);

}  // namespace jouleprof::report
