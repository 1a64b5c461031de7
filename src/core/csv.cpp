#include "core/csv.hpp"

#include "core/line_reader.hpp"
#include "core/parse.hpp"

namespace jouleprof {
namespace {

std::string_view without_enclosing_quotes(std::string_view field) {
  if (field.size() >= 2 && field.front() == '"' && field.back() == '"') {
    return field.substr(1, field.size() - 2);
  }
  return field;
}

std::vector<std::string> owned(const std::vector<std::string_view>& fields) {
  return {fields.begin(), fields.end()};
}

}  // namespace

std::vector<std::string_view> split_fields(std::string_view line, char separator) {
  std::vector<std::string_view> fields;
  bool quoted = false;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= line.size(); ++i) {
    if (i < line.size() && line[i] == '"') {
      quoted = !quoted;
    } else if (i == line.size() || (line[i] == separator && !quoted)) {
      fields.push_back(without_enclosing_quotes(trim_ascii_space(line.substr(start, i - start))));
      start = i + 1;
    }
  }
  return fields;
}

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

Result<CsvTable> read_csv_table(const std::string& path) {
  JP_TRY(LineReader lines, LineReader::open(path, "CSV table"));
  CsvTable table;
  table.path = path;
  JP_RETURN_IF_ERROR(for_each_line(lines, [&](const TextLine& line) -> Status {
    if (line.text.empty() || line.text.front() == '#') return Status::Ok();
    const std::vector<std::string_view> fields = split_fields(line.text, ',');
    if (table.header.empty()) {
      table.header = owned(fields);
      return Status::Ok();
    }
    if (fields.size() != table.header.size()) {
      return invalid_input(table.path, "line " + std::to_string(line.number), line.text,
                           "has " + std::to_string(fields.size()) + " fields, the header has " +
                               std::to_string(table.header.size()));
    }
    table.rows.push_back(owned(fields));
    table.line_numbers.push_back(static_cast<int>(line.number));
    return Status::Ok();
  }));
  if (table.header.empty()) return invalid_input(table.path, "header", "", "the file is empty");
  return table;
}

}  // namespace jouleprof
