#include "report/markup.hpp"

#include <array>

#include "core/control_escapes.hpp"

namespace jouleprof::report {

std::string xml_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n') break;
        out += c;
    }
  }
  return out;
}

std::string csv_field(std::string_view raw) {
  const std::string text = escape_control_characters(raw);
  if (text.find_first_of(",\"\n") == std::string_view::npos) return text;
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
  return out;
}

std::string_view category_colour(SpanCategory category) {
  // Index = the category's fixed number (timeline.hpp).
  static constexpr std::array<std::string_view, 9> kColours{
      "#9aa5b1",  // region
      "#6c8ebf",  // model
      "#82b366",  // layer
      "#e6a23c",  // op
      "#d9534f",  // kernel
      "#8e7cc3",  // step
      "#5bc0de",  // epoch
      "#f0ad4e",  // call
      "#b0855f",  // memory
  };
  const auto i = static_cast<std::size_t>(category);
  return i < kColours.size() ? kColours[i] : kColours[0];
}

}  // namespace jouleprof::report
