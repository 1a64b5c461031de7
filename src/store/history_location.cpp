// Where a history lives: a SQLite path or a PostgreSQL URL, and how to print one without its
// password.
#include <string>

#include "jouleprof/history.hpp"

namespace jouleprof {

bool is_postgresql_url(std::string_view location) {
  return location.starts_with("postgresql://") || location.starts_with("postgres://");
}

std::string redact_history_location(std::string_view location) {
  if (!is_postgresql_url(location)) return std::string(location);
  std::string out(location);
  // postgresql://user:PASSWORD@host…: the user information ends at the last '@' before the path
  // or the query (libpq wants a '@' in a password percent-encoded, but a pasted one may not be).
  const std::size_t authority = out.find("://") + 3;
  const std::size_t authority_end = std::min(out.find_first_of("/?", authority), out.size());
  const std::size_t at = out.rfind('@', authority_end);
  if (at != std::string::npos && at >= authority) {
    const std::size_t colon = out.find(':', authority);
    if (colon < at) out.replace(colon + 1, at - colon - 1, "***");
  }
  // …?password=PASSWORD&…
  const std::size_t query = out.find('?');
  for (std::size_t at_key = query; at_key != std::string::npos && at_key < out.size();
       at_key = out.find('&', at_key + 1)) {
    constexpr std::string_view kKey = "password=";
    if (out.compare(at_key + 1, kKey.size(), kKey) != 0) continue;
    const std::size_t value = at_key + 1 + kKey.size();
    const std::size_t value_end = std::min(out.find('&', value), out.size());
    out.replace(value, value_end - value, "***");
  }
  return out;
}

}  // namespace jouleprof
