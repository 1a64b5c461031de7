#include <unistd.h>

#include <climits>
#include <cstdlib>

#include "core/launcher_variables.hpp"
#include "core/parse.hpp"
#include "jouleprof/cluster.hpp"

namespace jouleprof {
namespace {

std::optional<int> read_int(const EnvLookup& env, const char* name,
                            std::vector<std::string>& warnings) {
  if (name == nullptr) return std::nullopt;
  const char* text = env(name);
  if (text == nullptr || *text == '\0') return std::nullopt;
  const std::optional<int> value = to_integer<int>(text);
  if (!value || *value < 0) {
    warnings.push_back(std::string("environment variable ") + name + " has value '" + text +
                       "': not a non-negative integer; ignored");
    return std::nullopt;
  }
  return value;
}

std::string this_host() {
  char name[HOST_NAME_MAX + 1] = {};
  if (gethostname(name, sizeof name) != 0) return "";
  return name;
}

}  // namespace

ClusterIdentity detect_cluster_identity(const EnvLookup& env_in) {
  const EnvLookup env = env_in ? env_in : EnvLookup([](const char* n) { return std::getenv(n); });
  ClusterIdentity id;
  for (const LauncherVariables& l : kLaunchers) {
    const char* marker = env(l.marker ? l.marker : l.rank);
    if (marker == nullptr || env(l.rank) == nullptr) continue;
    id.launcher = l.launcher;
    id.rank = read_int(env, l.rank, id.warnings);
    id.world_size = read_int(env, l.world_size, id.warnings);
    id.local_rank = read_int(env, l.local_rank, id.warnings);
    id.node_rank = read_int(env, l.node_rank, id.warnings);
    if (id.rank && id.world_size && *id.rank >= *id.world_size) {
      id.warnings.push_back(std::string("environment variable ") + l.rank + " has value '" +
                            env(l.rank) + "': not below " + l.world_size + " (" +
                            env(l.world_size) + "); rank kept");
    }
    break;
  }
  const char* slurm_node = env(kSlurmHostVariable);
  id.host = slurm_node != nullptr && *slurm_node != '\0' ? slurm_node : this_host();
  return id;
}

void apply_cluster_identity(const ClusterIdentity& identity, RunMetadata& meta) {
  if (!identity.host.empty()) meta.host = identity.host;
  if (identity.launcher.empty()) return;
  meta.options.cluster.launcher = identity.launcher;
  if (identity.rank) meta.rank = identity.rank;
  if (identity.world_size) meta.world_size = identity.world_size;
  if (identity.local_rank) meta.options.cluster.local_rank = identity.local_rank;
  if (identity.node_rank) meta.options.cluster.node_rank = identity.node_rank;
}

void record_cluster_identity(Profile& profile, const EnvLookup& env) {
  const ClusterIdentity identity = detect_cluster_identity(env);
  apply_cluster_identity(identity, profile.meta);
  profile.warnings.insert(profile.warnings.end(), identity.warnings.begin(),
                          identity.warnings.end());
}

}  // namespace jouleprof
