// Laying text out in a fixed number of terminal columns: widths in code points (the tree's guides
// and "µ" are one column each), names cut to fit, sentences wrapped, tables aligned.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace jouleprof::report {

// Columns `text` takes on a terminal: UTF-8 code points.
std::size_t display_width(std::string_view text);

// `text` when it fits in `width` columns, else its head and tail around one "…".
std::string fit_to_width(std::string_view text, std::size_t width);

// `text` when it fits in `width` columns, else its head and a final "…" (a table line whose last
// column is free text).
std::string cut_to_width(std::string_view text, std::size_t width);

// One paragraph broken at spaces into lines of at most `width` columns; the first line starts
// with `first_prefix`, the others with `next_prefix` (a hanging indent). A word longer than a
// line is cut with fit_to_width; a '\n' in `text` starts a new line. Every line ends with '\n'.
std::string wrap_text(std::string_view text, std::size_t width, std::string_view first_prefix,
                      std::string_view next_prefix);

// A table: the columns whose `right_aligned` entry is true are right-aligned, the others left;
// two spaces between columns, no trailing spaces. A row shorter than the header leaves the rest
// empty.
std::string format_text_table(const std::vector<std::string>& header,
                              const std::vector<std::vector<std::string>>& rows,
                              const std::vector<bool>& right_aligned);

}  // namespace jouleprof::report
