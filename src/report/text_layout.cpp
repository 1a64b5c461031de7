#include "report/text_layout.hpp"

#include <algorithm>

namespace jouleprof::report {
namespace {

constexpr std::string_view kEllipsis = "…";

bool is_continuation_byte(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

// Byte offset after the first `columns` code points of `text`.
std::size_t byte_offset_of_column(std::string_view text, std::size_t columns) {
  std::size_t seen = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (is_continuation_byte(text[i])) continue;
    if (seen == columns) return i;
    ++seen;
  }
  return text.size();
}

}  // namespace

std::size_t display_width(std::string_view text) {
  return static_cast<std::size_t>(
      std::count_if(text.begin(), text.end(), [](char c) { return !is_continuation_byte(c); }));
}

std::string fit_to_width(std::string_view text, std::size_t width) {
  const std::size_t have = display_width(text);
  if (have <= width) return std::string(text);
  if (width == 0) return "";
  const std::size_t keep = width - 1;  // columns left beside the ellipsis
  const std::size_t head = (keep + 1) / 2;
  const std::size_t tail = keep - head;
  std::string out(text.substr(0, byte_offset_of_column(text, head)));
  out += kEllipsis;
  out += text.substr(byte_offset_of_column(text, have - tail));
  return out;
}

std::string cut_to_width(std::string_view text, std::size_t width) {
  if (display_width(text) <= width) return std::string(text);
  if (width == 0) return "";
  return std::string(text.substr(0, byte_offset_of_column(text, width - 1))) +
         std::string(kEllipsis);
}

std::string wrap_text(std::string_view text, std::size_t width, std::string_view first_prefix,
                      std::string_view next_prefix) {
  std::string out;
  std::string line(first_prefix);
  bool line_has_word = false;
  const auto flush = [&] {
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + '\n';
    line = std::string(next_prefix);
    line_has_word = false;
  };
  std::size_t pos = 0;
  while (pos < text.size()) {
    if (text[pos] == '\n') flush();
    if (text[pos] == ' ' || text[pos] == '\n') {
      ++pos;
      continue;
    }
    const std::size_t end = std::min(text.find_first_of(" \n", pos), text.size());
    std::string_view word = text.substr(pos, end - pos);
    pos = end;
    if (line_has_word && display_width(line) + 1 + display_width(word) > width) flush();
    const std::string_view separator = line_has_word ? " " : "";
    const std::size_t used = display_width(line) + separator.size();
    line += separator;
    line += fit_to_width(word, width > used ? width - used : 1);
    line_has_word = true;
  }
  if (line_has_word || out.empty()) flush();
  return out;
}

std::string format_text_table(const std::vector<std::string>& header,
                              const std::vector<std::vector<std::string>>& rows,
                              const std::vector<bool>& right_aligned) {
  std::vector<std::size_t> width(header.size(), 0);
  for (std::size_t c = 0; c < header.size(); ++c) width[c] = display_width(header[c]);
  for (const auto& row : rows) {
    for (std::size_t c = 0; c < row.size() && c < width.size(); ++c)
      width[c] = std::max(width[c], display_width(row[c]));
  }
  std::string out;
  const auto emit = [&](const std::vector<std::string>& row) {
    std::string line;
    for (std::size_t c = 0; c < width.size(); ++c) {
      const std::string_view cell = c < row.size() ? std::string_view(row[c]) : "";
      const std::string pad(width[c] - std::min(width[c], display_width(cell)), ' ');
      if (c > 0) line += "  ";
      const bool right = c < right_aligned.size() && right_aligned[c];
      line += right ? pad + std::string(cell) : std::string(cell) + pad;
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + '\n';
  };
  emit(header);
  for (const auto& row : rows) emit(row);
  return out;
}

}  // namespace jouleprof::report
