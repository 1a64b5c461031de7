// Where the command line's text goes: whether a stream is a terminal and how many columns the
// text is laid out to.
#pragma once

#include <cstddef>

namespace jouleprof::cli {

// Columns for text written to `fd`: $COLUMNS when it holds a positive number, else the terminal's
// width when `fd` is a terminal, else kPipeColumns; kPipeColumns for fd < 0 (a file).
inline constexpr std::size_t kPipeColumns = 100;
std::size_t output_columns(int fd);

bool is_terminal(int fd);

}  // namespace jouleprof::cli
