// A small reader for the comma-separated tables of the reference data: a header row naming the
// columns, then one record per line. Fields are not quoted in these files; a quoted field is
// read with its quotes removed (commas inside quotes are kept). Lines starting with '#' are
// comments (kernel-bench writes how it measured there).
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "jouleprof/result.hpp"

namespace jouleprof::predict {

struct CsvTable {
  std::string path;  // for error messages
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  std::vector<int> line_numbers;  // the file line of each row (1-based)

  std::optional<std::size_t> column(std::string_view name) const;
  // The column's index, or an error naming the file and the missing column.
  Result<std::size_t> require_column(std::string_view name) const;
};

Result<CsvTable> read_csv_table(const std::filesystem::path& path);

}  // namespace jouleprof::predict
