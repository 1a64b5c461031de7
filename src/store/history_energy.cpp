// What the history keeps of a profile's energy (no SQLite needed here).
#include <cstdlib>
#include <map>

#include "jouleprof/history.hpp"
#include "report/tree_rows.hpp"

namespace jouleprof {

double energy_total_of(const Profile& profile) {
  if (!profile.channels.empty()) return profile.total_energy_j();
  return profile.tree ? profile.tree->energy_j : 0.0;
}

std::vector<NodeEnergy> node_energies_of(const Profile& profile) {
  std::vector<NodeEnergy> out;
  if (!profile.tree) return out;
  std::map<std::string, std::size_t> index_of_path;
  const std::size_t root_prefix = profile.tree->name.size() + 1;
  for (const report::TreeRow& row : report::flatten_tree(*profile.tree)) {
    const ProfileNode& n = *row.node;
    std::string path = row.depth == 0 ? std::string() : row.path.substr(root_prefix);
    auto [it, inserted] = index_of_path.try_emplace(path, out.size());
    if (inserted) {
      out.push_back(NodeEnergy{std::move(path), n.energy_j, n.self_energy_j, n.time_ns, n.calls,
                               n.provenance});
      continue;
    }
    NodeEnergy& same = out[it->second];  // a sibling with the same name: one path, summed
    same.energy_j += n.energy_j;
    same.self_energy_j += n.self_energy_j;
    same.time_ns += n.time_ns;
    same.calls += n.calls;
  }
  return out;
}

Result<std::string> default_history_path() {
  if (const char* env = std::getenv("JOULEPROF_DB"); env != nullptr && *env != '\0')
    return std::string(env);
  if (const char* xdg = std::getenv("XDG_DATA_HOME"); xdg != nullptr && *xdg != '\0') {
    return std::string(xdg) + "/jouleprof/history.db";
  }
  if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0') {
    return std::string(home) + "/.local/share/jouleprof/history.db";
  }
  return Error(ErrorCode::kNotFound,
               "no run history: JOULEPROF_DB, XDG_DATA_HOME and HOME are all unset (give --db "
               "FILE, or set one of them)");
}

Result<std::string> history_path(const std::string& given) {
  if (!given.empty()) return given;
  return default_history_path();
}

Result<std::int64_t> record_run(const std::string& db_path, const Profile& profile,
                                const std::string& profile_path, const RunTags& tags) {
  JP_TRY(HistoryDb db, HistoryDb::open(db_path));
  return db.record(profile, profile_path, tags);
}

}  // namespace jouleprof
