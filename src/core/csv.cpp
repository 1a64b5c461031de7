#include "core/csv.hpp"

#include "core/parse.hpp"
#include "core/text_file.hpp"

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

std::vector<TextLine> split_lines(std::string_view content) {
  std::vector<TextLine> lines;
  std::size_t start = 0;
  std::size_t number = 1;
  while (start < content.size()) {
    const std::size_t end = content.find('\n', start);
    const bool terminated = end != std::string_view::npos;
    std::string_view text =
        content.substr(start, terminated ? end - start : std::string_view::npos);
    if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
    lines.push_back(TextLine{number++, text, terminated});
    if (!terminated) break;
    start = end + 1;
  }
  return lines;
}

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
  JP_TRY(const std::string text, read_text_file(path, "CSV table"));
  CsvTable table;
  table.path = path;
  for (const TextLine& line : split_lines(text)) {
    if (line.text.empty() || line.text.front() == '#') continue;
    const std::vector<std::string_view> fields = split_fields(line.text, ',');
    if (table.header.empty()) {
      table.header = owned(fields);
      continue;
    }
    if (fields.size() != table.header.size()) {
      return invalid_input(table.path, "line " + std::to_string(line.number), line.text,
                           "has " + std::to_string(fields.size()) + " fields, the header has " +
                               std::to_string(table.header.size()));
    }
    table.rows.push_back(owned(fields));
    table.line_numbers.push_back(static_cast<int>(line.number));
  }
  if (table.header.empty()) return invalid_input(table.path, "header", "", "the file is empty");
  return table;
}

}  // namespace jouleprof
