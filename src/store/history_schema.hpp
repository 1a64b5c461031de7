// The history's one schema, as numbered migrations written for each backend's dialect: the same
// tables, columns and keys in SQLite and PostgreSQL, so the two answer the same queries. A
// database records the versions applied to it in `schema_migrations`.
#pragma once

#include <span>

namespace jouleprof::detail {

struct Migration {
  int version;
  const char* description;
  const char* sqlite_sql;
  const char* postgresql_sql;
};

// Append-only: a released migration never changes; a new schema is a new entry, written for both
// dialects. The last one's version is kHistorySchemaVersion.
std::span<const Migration> history_migrations();

}  // namespace jouleprof::detail
