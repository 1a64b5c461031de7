// Small text helpers shared by the writers: escaping for XML/HTML and CSV, and span colours.
// Figures with their units are core/quantity_text.hpp.
#pragma once

#include <string>
#include <string_view>

#include "jouleprof/timeline.hpp"

namespace jouleprof::report {

// &, <, >, " and ' replaced by entities; control characters other than tab/newline dropped
// (they are not allowed in XML 1.0).
std::string xml_escape(std::string_view text);

// Quoted (RFC 4180) when the field holds a comma, quote or LF; control characters other than LF
// and tab escaped first (core/control_escapes.hpp): a CSV shown in a terminal cannot drive it.
std::string csv_field(std::string_view text);

// The fill colour of a span category (flame graph, HTML timeline): one fixed hue per category.
std::string_view category_colour(SpanCategory category);

}  // namespace jouleprof::report
