#include "core/parse.hpp"

#include <charconv>
#include <cmath>

namespace jouleprof {
namespace {

bool is_ascii_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

// The digits from_chars should read: trimmed, one leading '+' dropped ("+-1" stays invalid).
std::string_view number_text(std::string_view text) {
  text = trim_ascii_space(text);
  if (text.size() > 1 && text.front() == '+' && text[1] != '-' && text[1] != '+')
    text.remove_prefix(1);
  return text;
}

// The value of c as a digit of bases up to 36 ('7' -> 7, 'f' and 'F' -> 15); 36 for no digit.
int digit_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'z') return c - 'a' + 10;
  if (c >= 'A' && c <= 'Z') return c - 'A' + 10;
  return 36;
}

template <typename T, typename... Base>
std::optional<T> read_whole(std::string_view text, Base... base) {
  text = number_text(text);
  if (text.empty()) return std::nullopt;
  T value{};
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value, base...);
  if (ec != std::errc() || ptr != end) return std::nullopt;
  return value;
}

}  // namespace

std::string_view trim_ascii_space(std::string_view text) {
  while (!text.empty() && is_ascii_space(text.front())) text.remove_prefix(1);
  while (!text.empty() && is_ascii_space(text.back())) text.remove_suffix(1);
  return text;
}

bool looks_like_integer(std::string_view text, int base) {
  text = number_text(text);
  if (!text.empty() && text.front() == '-') text.remove_prefix(1);
  if (text.empty()) return false;
  for (const char c : text) {
    if (digit_value(c) >= base) return false;
  }
  return true;
}

std::string_view leading_digits(std::string_view text) {
  std::size_t end = 0;
  while (end < text.size() && text[end] >= '0' && text[end] <= '9') ++end;
  return text.substr(0, end);
}

std::optional<double> to_number(std::string_view text) {
  const std::optional<double> value = read_whole<double>(text);
  if (!value || !std::isfinite(*value)) return std::nullopt;
  return value;
}

std::optional<std::int64_t> to_int64(std::string_view text, int base) {
  return read_whole<std::int64_t>(text, base);
}

std::optional<std::uint64_t> to_uint64(std::string_view text, int base) {
  // from_chars reads "-1" as an error for unsigned types, as it should.
  return read_whole<std::uint64_t>(text, base);
}

Result<double> parse_number(std::string_view where, std::string_view field, std::string_view text) {
  if (const std::optional<double> v = to_number(text)) return *v;
  return invalid_input(where, field, text, "not a finite number");
}

Result<std::int64_t> parse_int64(std::string_view where, std::string_view field,
                                 std::string_view text) {
  if (const std::optional<std::int64_t> v = to_int64(text)) return *v;
  return invalid_input(where, field, text, "not an integer (or out of range)");
}

Result<std::uint64_t> parse_uint64(std::string_view where, std::string_view field,
                                   std::string_view text) {
  if (const std::optional<std::uint64_t> v = to_uint64(text)) return *v;
  return invalid_input(where, field, text, "not a non-negative integer (or out of range)");
}

}  // namespace jouleprof
