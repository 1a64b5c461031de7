#include "report/display_name.hpp"

#include <cctype>

namespace jouleprof::report {
namespace {

constexpr std::string_view kEllipsis = "…";

bool is_name_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '>' || c == ']';
}

// Where the bracket group opened at `open` closes (nesting of the same pair counted), or npos.
std::size_t closing(std::string_view s, std::size_t open, char opening, char closer) {
  int depth = 0;
  for (std::size_t i = open; i < s.size(); ++i) {
    if (s[i] == opening) ++depth;
    if (s[i] == closer && --depth == 0) return i;
  }
  return std::string_view::npos;
}

bool ends_with_operator(const std::string& out) {
  return out.size() >= 8 && std::string_view(out).substr(out.size() - 8) == "operator";
}

}  // namespace

std::string shorten_for_display(std::string_view name, bool keep_templates) {
  if (name.starts_with("void ")) name.remove_prefix(5);
  std::string out;
  out.reserve(name.size());
  for (std::size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    const bool after_name = !out.empty() && is_name_char(out.back()) && !ends_with_operator(out);
    if ((c == '(' || (c == '<' && !keep_templates)) && after_name) {
      const char closer = c == '<' ? '>' : ')';
      const std::size_t end = closing(name, i, c, closer);
      if (end != std::string_view::npos && end > i + 1) {
        out += c;
        out += kEllipsis;
        out += closer;
        i = end;
        continue;
      }
    }
    out += c;
  }
  return out;
}

}  // namespace jouleprof::report
