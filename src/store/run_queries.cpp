// Column 18 and 19 give the run's provenance (its top-level channels' and its tree root's), 25 its
// top-level channels: derived from the stored channels, so runs recorded before those existed
// show them too.
#include "store/run_queries.hpp"

#include <fmt/format.h>

namespace jouleprof::detail {
namespace {

std::string run_columns(const SqlDialect& d) {
  return fmt::format(
      "id, recorded_at_ns, kind, host, rank, world_size, command, tool_version, begin_ns, end_ns, "
      "exit_code, partial, total_energy_j, profile_path, warnings, process_energy_j, observed, "
      "COALESCE(run_key, ''), "
      "(SELECT {0}(provenance, ',') FROM run_channels c WHERE c.run_id = runs.id AND "
      "c.parent_id = ''), "
      "(SELECT provenance FROM run_nodes n WHERE n.run_id = runs.id AND n.path = ''), "
      "label, branch, commit_sha, total_energy_low_j, total_energy_high_j, "
      "(SELECT {0}(channel_id, ',') FROM run_channels c WHERE c.run_id = runs.id AND "
      "c.parent_id = '')",
      d.string_aggregate);
}

// "(?1, ?2, …)" or "($1, $2, …)".
std::string parameters(const SqlDialect& d, int count) {
  std::string out = "(";
  for (int i = 1; i <= count; ++i) out += fmt::format("{}{}{}", i > 1 ? ", " : "", d.parameter, i);
  return out + ")";
}

}  // namespace

std::string insert_run_sql(const SqlDialect& d) {
  return "INSERT INTO runs (recorded_at_ns, kind, host, rank, world_size, command, tool_version, "
         "begin_ns, end_ns, exit_code, partial, total_energy_j, profile_path, warnings, "
         "process_energy_j, observed, run_key, label, branch, commit_sha, total_energy_low_j, "
         "total_energy_high_j) VALUES " +
         parameters(d, 22) + " ON CONFLICT (run_key) DO NOTHING RETURNING id";
}

std::string insert_channel_sql(const SqlDialect& d) {
  return "INSERT INTO run_channels (run_id, channel_id, device, domain, parent_id, provenance, "
         "energy_j, mean_power_w, process_energy_j) VALUES " +
         parameters(d, 9);
}

std::string insert_node_sql(const SqlDialect& d) {
  return "INSERT INTO run_nodes (run_id, ord, path, energy_j, self_energy_j, time_ns, calls, "
         "provenance) VALUES " +
         parameters(d, 8);
}

std::string list_runs_sql(const SqlDialect& d) {
  return fmt::format(
      "SELECT {0} FROM runs WHERE ({1}1 = '' OR host = {1}1) AND ({1}2 = '' OR {2}(command, {1}2) "
      "> 0) AND ({1}3 = '' OR command = {1}3) AND ({1}4 = '' OR branch = {1}4) AND ({1}5 = '' OR "
      "label = {1}5) AND ({1}6 = '' OR commit_sha = {1}6) AND ({1}7 = '' OR branch = {1}7 OR "
      "label = {1}7) ORDER BY id DESC",
      run_columns(d), d.parameter, d.position);
}

std::array<std::string, 7> list_parameters(const HistoryFilter& f) {
  return {f.host, f.command_contains, f.command, f.branch, f.label, f.commit, f.branch_or_label};
}

std::string run_by_id_sql(const SqlDialect& d) {
  return fmt::format("SELECT {} FROM runs WHERE id = {}1", run_columns(d), d.parameter);
}

}  // namespace jouleprof::detail
