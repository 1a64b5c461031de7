// The queries that write and read runs, written once for both backends: only the dialect's words
// differ (SQLite's group_concat and instr, ?N parameters; PostgreSQL's string_agg and strpos, $N),
// so that `history`, `compare` and the budgets get the same rows from either.
#pragma once

#include <array>
#include <string>

#include "jouleprof/history.hpp"
#include "store/stored_run.hpp"

namespace jouleprof::detail {

struct SqlDialect {
  const char* string_aggregate;  // (text, separator) → one text
  const char* position;          // (haystack, needle) → 1-based index, 0 when absent
  char parameter;                // before a parameter's number
};
inline constexpr SqlDialect kSqliteDialect{"group_concat", "instr", '?'};
inline constexpr SqlDialect kPostgresDialect{"string_agg", "strpos", '$'};

// The runs that match a filter, newest first; its parameters are list_parameters(filter), in
// order. The provenance filter is applied to the rows (it is derived per row).
std::string list_runs_sql(const SqlDialect& dialect);
std::array<std::string, 7> list_parameters(const HistoryFilter& filter);
// One run; its parameter is the id.
std::string run_by_id_sql(const SqlDialect& dialect);

// The inserts of one run, its channels and its nodes, their parameters numbered in the order the
// columns are named here. The run's insert returns its id, and no row for a run whose run_key is
// there already (ON CONFLICT DO NOTHING … RETURNING: SQLite 3.35 and PostgreSQL 9.5 on).
std::string insert_run_sql(const SqlDialect& dialect);
std::string insert_channel_sql(const SqlDialect& dialect);
std::string insert_node_sql(const SqlDialect& dialect);

// A row of either query as a RunRecord. `Row` reads column i as int64(i), real(i), text(i),
// optional_int(i) and optional_real(i); a NULL text reads "".
template <typename Row>
RunRecord run_from_row(const Row& row) {
  RunRecord r;
  r.id = row.int64(0);
  r.recorded_at_realtime_ns = row.int64(1);
  r.kind = row.text(2);
  r.host = row.text(3);
  r.rank = row.optional_int(4);
  r.world_size = row.optional_int(5);
  r.command = row.text(6);
  r.tool_version = row.text(7);
  r.duration_ns = row.int64(9) - row.int64(8);
  r.exit_code = row.optional_int(10);
  r.partial = row.int64(11) != 0;
  r.total_energy_j = row.real(12);
  r.profile_path = row.text(13);
  r.warnings = static_cast<std::size_t>(row.int64(14));
  r.process_energy_j = row.optional_real(15);
  r.observed = row.text(16);
  r.run_key = row.text(17);
  r.provenance = stored_provenance(row.text(18), row.text(19));
  r.tags = RunTags{row.text(20), row.text(21), row.text(22)};
  r.total_energy_low_j = row.optional_real(23);
  r.total_energy_high_j = row.optional_real(24);
  r.channels = sorted_channels(row.text(25));
  return r;
}

}  // namespace jouleprof::detail
