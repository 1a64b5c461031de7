// Numbers in the text jouleprof reads (CSV fields, logs, settings, environment variables, sysfs),
// by one rule everywhere:
//   - decimal as std::from_chars reads it, so the locale never matters ('.' is the decimal point,
//     no thousands separators); integers may be given in another base;
//   - ASCII whitespace (space, tab, CR, LF) around the number is ignored;
//   - one leading '+' is accepted; a '-' only where the type can hold it;
//   - the whole text must be the number ("12abc" is not 12);
//   - "inf", "nan" and values out of the type's range are not numbers.
#pragma once

#include <concepts>
#include <cstdint>
#include <optional>
#include <string_view>
#include <type_traits>
#include <utility>

#include "jouleprof/result.hpp"

namespace jouleprof {

// The text without the ASCII whitespace around it.
std::string_view trim_ascii_space(std::string_view text);

std::optional<double> to_number(std::string_view text);
std::optional<std::int64_t> to_int64(std::string_view text, int base = 10);
std::optional<std::uint64_t> to_uint64(std::string_view text, int base = 10);

// An integer of any width (a pid_t, a column count): out of T's range is not a number.
template <std::integral T>
requires(!std::same_as<T, bool>) std::optional<T> to_integer(std::string_view text, int base = 10) {
  if constexpr (std::is_signed_v<T>) {
    const std::optional<std::int64_t> value = to_int64(text, base);
    if (value && std::in_range<T>(*value)) return static_cast<T>(*value);
  } else {
    const std::optional<std::uint64_t> value = to_uint64(text, base);
    if (value && std::in_range<T>(*value)) return static_cast<T>(*value);
  }
  return std::nullopt;
}

// Whether `text` is written as an integer of `base` (a sign, then digits) whatever its size: tells
// a counter too large for its type ("out of range") from text that is no number at all.
bool looks_like_integer(std::string_view text, int base = 10);

// The decimal digits at the front of `text`, perhaps none: a number inside other text
// ("origin_ns=123, counter…" after the key, "GPU:3/stream:7" after "GPU:").
std::string_view leading_digits(std::string_view text);

// The same, as a Result whose error names where the text came from (a file, "file:line",
// "settings"), the field and the value: "meter.csv:3: field current_ma: value 'x': not a number".
Result<double> parse_number(std::string_view where, std::string_view field, std::string_view text);
Result<std::int64_t> parse_int64(std::string_view where, std::string_view field,
                                 std::string_view text);
Result<std::uint64_t> parse_uint64(std::string_view where, std::string_view field,
                                   std::string_view text);

}  // namespace jouleprof
