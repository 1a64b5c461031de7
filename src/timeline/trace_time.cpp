#include "timeline/trace_time.hpp"

#include <cmath>
#include <cstdint>
#include <limits>

#include "core/parse.hpp"

namespace jouleprof::timeline {
namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// Exponent forms are rare in traces: read them through a double.
std::optional<TimeNs> via_double(std::string_view token) {
  const std::optional<double> us = to_number(token);
  if (!us) return std::nullopt;
  const double ns = std::round(*us * 1000.0);
  if (!std::isfinite(ns) || std::fabs(ns) >= 9.2e18) return std::nullopt;
  return static_cast<TimeNs>(ns);
}

}  // namespace

std::optional<TimeNs> microseconds_token_to_ns(std::string_view token) {
  token = trim_ascii_space(token);
  if (token.empty()) return std::nullopt;
  std::size_t i = 0;
  const bool negative = token[0] == '-';
  if (negative) ++i;
  if (i == token.size() || !is_digit(token[i])) return std::nullopt;
  std::int64_t ns = 0;
  for (; i < token.size() && is_digit(token[i]); ++i) {
    if (__builtin_mul_overflow(ns, 10, &ns) || __builtin_add_overflow(ns, token[i] - '0', &ns)) {
      return std::nullopt;
    }
  }
  if (__builtin_mul_overflow(ns, 1000, &ns)) return std::nullopt;
  if (i < token.size()) {
    if (token[i] == 'e' || token[i] == 'E') return via_double(token);
    if (token[i] != '.') return std::nullopt;
    ++i;
    if (i == token.size() || !is_digit(token[i])) return std::nullopt;
    std::int64_t scale = 100;
    bool round_up = false;
    for (int position = 0; i < token.size(); ++i, ++position) {
      if (token[i] == 'e' || token[i] == 'E') return via_double(token);
      if (!is_digit(token[i])) return std::nullopt;
      if (position < 3) {
        if (__builtin_add_overflow(ns, (token[i] - '0') * scale, &ns)) return std::nullopt;
        scale /= 10;
      } else if (position == 3) {
        round_up = token[i] >= '5';
      }
    }
    if (round_up && __builtin_add_overflow(ns, 1, &ns)) return std::nullopt;
  }
  return negative ? -ns : ns;
}

}  // namespace jouleprof::timeline
