#include <fmt/format.h>

#include <ctime>
#include <iostream>
#include <nlohmann/json.hpp>

#include "command.hpp"
#include "jouleprof/history.hpp"

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
          {"profile_path", r.profile_path},
          {"warnings", r.warnings}};
}

std::string csv_quoted(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

}  // namespace

CommandRunner add_history_command(CLI::App& parent) {
  auto* cmd = parent.add_subcommand("history", "List recorded runs (newest first)");
  struct Options {
    std::string db;
    std::size_t limit = 20;
    std::string format = "table";
  };
  auto o = std::make_shared<Options>();
  cmd->add_option(
      "--db", o->db,
      "History database (default: $JOULEPROF_DB, else $XDG_DATA_HOME/jouleprof/history.db, else "
      "~/.local/share/jouleprof/history.db)");
  cmd->add_option("--limit,-n", o->limit, "Runs to list; 0 = all")->capture_default_str();
  cmd->add_option("--format,-f", o->format, "table, json or csv")
      ->check(CLI::IsMember({"table", "json", "csv"}))
      ->capture_default_str();
  return [o] {
    const std::string path = o->db.empty() ? default_history_path() : o->db;
    auto db = HistoryDb::open_existing(path);
    if (!db) return report_error(db.error());
    auto runs = db->list(o->limit);
    if (!runs) return report_error(runs.error());
    if (o->format == "json") {
      nlohmann::json out = nlohmann::json::array();
      for (const RunRecord& r : *runs) out.push_back(to_json(r));
      std::cout << out.dump(2) << '\n';
    } else if (o->format == "csv") {
      std::cout << "id,recorded_at,kind,host,rank,world_size,duration_ns,total_energy_j,exit_code,"
                   "partial,"
                   "warnings,command,profile_path\n";
      for (const RunRecord& r : *runs) {
        std::cout << fmt::format("{},{},{},{},{},{},{},{:.9g},{},{},{},{},{}\n", r.id,
                                 utc_time(r.recorded_at_realtime_ns), csv_quoted(r.kind),
                                 csv_quoted(r.host), r.rank ? std::to_string(*r.rank) : "",
                                 r.world_size ? std::to_string(*r.world_size) : "", r.duration_ns,
                                 r.total_energy_j, r.exit_code ? std::to_string(*r.exit_code) : "",
                                 r.partial ? 1 : 0, r.warnings, csv_quoted(r.command),
                                 csv_quoted(r.profile_path));
      }
    } else {
      if (runs->empty()) {
        std::cout << "no runs recorded in " << path << '\n';
        return kExitOk;
      }
      std::cout << fmt::format("{:>5}  {:<20}  {:<8}  {:<16}  {:>5}  {:>10}  {:>12}  {}\n", "id",
                               "recorded (UTC)", "kind", "host", "rank", "duration", "energy",
                               "command");
      for (const RunRecord& r : *runs) {
        std::string command = r.command.size() > 48 ? r.command.substr(0, 45) + "..." : r.command;
        std::cout << fmt::format(
            "{:>5}  {:<20}  {:<8}  {:<16}  {:>5}  {:>9.2f}s  {:>10.3f} J  {}{}\n", r.id,
            utc_time(r.recorded_at_realtime_ns), r.kind, r.host,
            r.rank ? std::to_string(*r.rank) : "-", ns_to_s(r.duration_ns), r.total_energy_j,
            command, r.partial ? "  [partial]" : "");
      }
    }
    return kExitOk;
  };
}

}  // namespace jouleprof::cli
