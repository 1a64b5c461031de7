#include <fmt/format.h>
#include <unistd.h>

#include <ctime>
#include <iostream>
#include <nlohmann/json.hpp>

#include "command.hpp"
#include "core/quantity_text.hpp"
#include "jouleprof/history.hpp"
#include "jouleprof/history_import.hpp"
#include "output_format.hpp"
#include "report/text_layout.hpp"
#include "terminal.hpp"

namespace jouleprof::cli {
namespace {

std::string utc_time(TimeNs realtime_ns) {
  const std::time_t seconds = static_cast<std::time_t>(realtime_ns / kNsPerS);
  std::tm tm{};
  gmtime_r(&seconds, &tm);
  char buffer[32];
  std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buffer;
}

nlohmann::json to_json(const RunRecord& r) {
  return {{"id", r.id},
          {"recorded_at", utc_time(r.recorded_at_realtime_ns)},
          {"kind", r.kind},
          {"host", r.host},
          {"rank", r.rank ? nlohmann::json(*r.rank) : nlohmann::json()},
          {"world_size", r.world_size ? nlohmann::json(*r.world_size) : nlohmann::json()},
          {"command", r.command},
          {"tool_version", r.tool_version},
          {"duration_ns", r.duration_ns},
          {"exit_code", r.exit_code ? nlohmann::json(*r.exit_code) : nlohmann::json()},
          {"partial", r.partial},
          {"total_energy_j", r.total_energy_j},
          {"process_energy_j",
           r.process_energy_j ? nlohmann::json(*r.process_energy_j) : nlohmann::json()},
          {"observed", r.observed},
          {"provenance", to_string(r.provenance)},
          {"profile_path", r.profile_path},
          {"warnings", r.warnings},
          {"run_key", r.run_key},
          {"label", r.tags.label},
          {"branch", r.tags.branch},
          {"commit", r.tags.commit},
          {"total_energy_low_j",
           r.total_energy_low_j ? nlohmann::json(*r.total_energy_low_j) : nlohmann::json()},
          {"total_energy_high_j",
           r.total_energy_high_j ? nlohmann::json(*r.total_energy_high_j) : nlohmann::json()}};
}

std::string csv_quoted(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

// `history import DIR`: the profiles under DIR into the history, each run once.
int import_into_history(const std::string& db_flag, const std::string& dir) {
  const Result<std::string> path = history_path(db_flag);
  if (!path) return report_error(path.error());
  const Result<HistoryImport> done = import_profiles(*path, dir);
  if (!done) return report_error(done.error());
  for (const HistoryImport::Recorded& r : done->recorded)
    std::cout << fmt::format("run {}: {}\n", r.id, r.path);
  for (const HistoryImport::Skipped& s : done->skipped)
    std::cerr << fmt::format("jouleprof: skipped {}: {}\n", s.path, s.reason);
  std::cout << fmt::format("{} profile(s) in {}; a run recorded before keeps its id\n",
                           done->recorded.size(), redact_history_location(*path));
  if (done->recorded.empty()) {
    return report_error(Error(ErrorCode::kNotFound, dir + ": no profile to import under it"));
  }
  return kExitOk;
}

}  // namespace

CommandRunner add_history_command(CLI::App& parent) {
  auto* cmd = parent.add_subcommand("history", "List recorded runs (newest first)");
  struct Options {
    std::string db;
    std::size_t limit = 20;
    OutputFormat format = OutputFormat::kTable;
    HistoryFilter filter;
    std::string provenance;
  };
  auto o = std::make_shared<Options>();
  constexpr const char* kDbHelp =
      "History database: a SQLite file or a postgresql:// URL (default: $JOULEPROF_DB, else "
      "$XDG_DATA_HOME/jouleprof/history.db, else ~/.local/share/jouleprof/history.db)";
  cmd->add_option("--db", o->db, kDbHelp);
  cmd->add_option("--limit,-n", o->limit, "Runs to list; 0 = all")->capture_default_str();
  cmd->add_option("--host", o->filter.host, "Only runs on this host");
  cmd->add_option("--command", o->filter.command_contains, "Only runs whose command contains TEXT")
      ->type_name("TEXT");
  cmd->add_option("--branch", o->filter.branch, "Only runs tagged with this branch")
      ->type_name("NAME");
  cmd->add_option("--label", o->filter.label, "Only runs tagged with this label (run --label)")
      ->type_name("NAME");
  cmd->add_option("--commit", o->filter.commit, "Only runs of this commit")->type_name("SHA");
  cmd->add_option("--provenance", o->provenance,
                  "Only runs whose total is measured, interpolated, imported, estimated, predicted "
                  "or simulated")
      ->check(CLI::IsMember(
          {"measured", "interpolated", "imported", "estimated", "predicted", "simulated"}));
  add_format_option(*cmd, o->format,
                    {OutputFormat::kTable, OutputFormat::kJson, OutputFormat::kCsv},
                    "table, json or csv", /*short_flag=*/true);
  auto* import = cmd->add_subcommand(
      "import",
      "Record the profiles under DIR (every *.json that is a profile, recursively): runs that "
      "could not be recorded when they ran, or runs from elsewhere. A run already in the history "
      "is not added twice");
  auto import_dir = std::make_shared<std::string>();
  auto import_db = std::make_shared<std::string>();
  import->add_option("dir", *import_dir, "Directory of profiles (a run's --output directory)")
      ->required()
      ->type_name("DIR");
  import->add_option("--db", *import_db, kDbHelp);
  return [o, import, import_dir, import_db] {
    if (import->parsed())
      return import_into_history(import_db->empty() ? o->db : *import_db, *import_dir);
    const Result<std::string> path = history_path(o->db);
    if (!path) return report_error(path.error());
    auto db = HistoryDb::open_existing(*path);
    if (!db) return report_error(db.error());
    if (!o->provenance.empty()) o->filter.provenance = provenance_from_string(o->provenance);
    auto runs = db->list(o->limit, o->filter);
    if (!runs) return report_error(runs.error());
    if (o->format == OutputFormat::kJson) {
      nlohmann::json out = nlohmann::json::array();
      for (const RunRecord& r : *runs) out.push_back(to_json(r));
      std::cout << out.dump(2) << '\n';
    } else if (o->format == OutputFormat::kCsv) {
      std::cout << "id,recorded_at,kind,host,rank,world_size,duration_ns,total_energy_j,"
                   "process_energy_j,provenance,exit_code,partial,warnings,command,observed,"
                   "profile_path,run_key,label,branch,commit\n";
      for (const RunRecord& r : *runs) {
        std::cout << fmt::format(
            "{},{},{},{},{},{},{},{:.9g},{},{},{},{},{},{},{},{},{},{},{},{}\n", r.id,
            utc_time(r.recorded_at_realtime_ns), csv_quoted(r.kind), csv_quoted(r.host),
            r.rank ? std::to_string(*r.rank) : "",
            r.world_size ? std::to_string(*r.world_size) : "", r.duration_ns, r.total_energy_j,
            r.process_energy_j ? fmt::format("{:.9g}", *r.process_energy_j) : "",
            to_string(r.provenance), r.exit_code ? std::to_string(*r.exit_code) : "",
            r.partial ? 1 : 0, r.warnings, csv_quoted(r.command), csv_quoted(r.observed),
            csv_quoted(r.profile_path), csv_quoted(r.run_key), csv_quoted(r.tags.label),
            csv_quoted(r.tags.branch), csv_quoted(r.tags.commit));
      }
    } else {
      if (runs->empty()) {
        std::cout << "no runs recorded in " << redact_history_location(*path) << '\n';
        return kExitOk;
      }
      // Two figures: the machine's (every process on the counters) and the observed
      // processes' attributed share of it, when the run observed any.
      std::vector<std::vector<std::string>> rows;
      for (const RunRecord& r : *runs) {
        rows.push_back({std::to_string(r.id), utc_time(r.recorded_at_realtime_ns), r.kind, r.host,
                        r.rank ? std::to_string(*r.rank) : "-", format_duration(r.duration_ns),
                        format_energy(r.total_energy_j),
                        r.process_energy_j ? format_energy(*r.process_energy_j) : std::string("-"),
                        std::string(to_string(r.provenance)),
                        r.command + (r.partial ? "  [partial]" : "")});
      }
      std::string table = report::format_text_table(
          {"id", "recorded (UTC)", "kind", "host", "rank", "duration", "machine", "processes",
           "provenance", "command"},
          rows, {true, false, false, false, true, true, true, true, false, false});
      // The command column is last: cut lines to the width rather than wrapping them.
      const std::size_t width = output_columns(STDOUT_FILENO);
      std::size_t begin = 0;
      while (begin < table.size()) {
        const std::size_t end = table.find('\n', begin);
        std::cout << report::cut_to_width(std::string_view(table).substr(begin, end - begin), width)
                  << '\n';
        begin = end + 1;
      }
    }
    return kExitOk;
  };
}

}  // namespace jouleprof::cli
