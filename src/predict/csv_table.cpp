#include "predict/csv_table.hpp"

#include <charconv>
#include <cmath>
#include <fstream>

#include "core/text_file.hpp"

namespace jouleprof::predict {
namespace {

std::vector<std::string> split_record(std::string_view line) {
  std::vector<std::string> fields;
  std::string field;
  bool quoted = false;
  for (char c : line) {
    if (c == '"') {
      quoted = !quoted;
    } else if (c == ',' && !quoted) {
      fields.push_back(std::move(field));
      field.clear();
    } else {
      field += c;
    }
  }
  fields.push_back(std::move(field));
  return fields;
}

}  // namespace

std::optional<std::size_t> CsvTable::column(std::string_view name) const {
  for (std::size_t i = 0; i < header.size(); ++i) {
    if (header[i] == name) return i;
  }
  return std::nullopt;
}

Result<std::size_t> CsvTable::require_column(std::string_view name) const {
  if (auto index = column(name)) return *index;
  return invalid_input(path, "header", std::string(name), "column missing");
}

Result<CsvTable> read_csv_table(const std::filesystem::path& path) {
  JP_TRY(const std::string text, read_text_file(path.string(), "CSV table"));
  std::istringstream in(text);
  CsvTable table;
  table.path = path.string();
  std::string line;
  int line_number = 0;
  while (std::getline(in, line)) {
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || line.front() == '#') continue;
    if (table.header.empty()) {
      table.header = split_record(line);
      continue;
    }
    auto fields = split_record(line);
    if (fields.size() != table.header.size()) {
      return invalid_input(table.path, "line " + std::to_string(line_number), line,
                           "has " + std::to_string(fields.size()) + " fields, the header has " +
                               std::to_string(table.header.size()));
    }
    table.rows.push_back(std::move(fields));
    table.line_numbers.push_back(line_number);
  }
  if (table.header.empty()) return invalid_input(table.path, "header", "", "the file is empty");
  return table;
}

}  // namespace jouleprof::predict
