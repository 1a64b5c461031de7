// The one reader of the delimited text jouleprof takes in (power logs, meter CSVs, training logs,
// reference tables): fields of a line (core/line_reader.hpp) split on a separator and trimmed, and
// on top of those a table with a header row naming its columns.
//
// A field may be quoted as a whole ("HW,Cin,KS"): the separator inside the quotes is part of it,
// and the quotes are not. Quotes inside a field are kept as they are.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "jouleprof/result.hpp"

namespace jouleprof {

// The fields of `line` between `separator`s, without the ASCII whitespace around them.
std::vector<std::string_view> split_fields(std::string_view line, char separator);

// A comma-separated table: a header row, then one record per line. Empty lines and lines starting
// with '#' are left out (kernel-bench writes how it measured there); every record has the
// header's number of fields. The file is read line by line and refused at its first bad line.
struct CsvTable {
  std::string path;  // for error messages
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  std::vector<int> line_numbers;  // the file line of each row (1-based)

  std::optional<std::size_t> column(std::string_view name) const;
  // The column's index, or an error naming the file and the missing column.
  Result<std::size_t> require_column(std::string_view name) const;
};

Result<CsvTable> read_csv_table(const std::string& path);

}  // namespace jouleprof
