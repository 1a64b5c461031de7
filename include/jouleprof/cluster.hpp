// Runs beyond one machine: which rank of which job on which host a process is (from the
// launcher's environment: torchrun, Slurm, MPI), and merging the per-rank profiles of one job
// into one cluster profile.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "jouleprof/profile.hpp"
#include "jouleprof/result.hpp"

namespace jouleprof {

struct ClusterIdentity {
  std::string launcher;     // "torchrun", "slurm", "openmpi", "mpich", "mvapich", "" = none found
  std::optional<int> rank;  // global rank
  std::optional<int> world_size;      // ranks in the job
  std::optional<int> local_rank;      // rank on this node
  std::optional<int> node_rank;       // index of this node (torchrun GROUP_RANK, SLURM_NODEID)
  std::string host;                   // SLURMD_NODENAME, else the host name
  std::vector<std::string> warnings;  // variables present but unusable, naming variable and value
};

using EnvLookup = std::function<const char*(const char*)>;

// Reads the launcher variables, first match wins: torchrun (RANK, WORLD_SIZE, LOCAL_RANK,
// GROUP_RANK; recognised by TORCHELASTIC_RUN_ID or LOCAL_RANK), Slurm (SLURM_PROCID,
// SLURM_NTASKS, SLURM_LOCALID, SLURM_NODEID, SLURMD_NODENAME), Open MPI (OMPI_COMM_WORLD_RANK,
// _SIZE, _LOCAL_RANK), MVAPICH (MV2_COMM_WORLD_RANK, _SIZE, _LOCAL_RANK), MPICH/Intel MPI
// (PMI_RANK, PMI_SIZE, MPI_LOCALRANKID). `env` defaults to the process environment.
ClusterIdentity detect_cluster_identity(const EnvLookup& env = {});

// Writes the identity into a run's metadata: rank, world_size and host (when found), and
// options "cluster.launcher", "cluster.local_rank", "cluster.node_rank"; warnings go to
// `profile.warnings` by the caller (they are returned in the identity).
void apply_cluster_identity(const ClusterIdentity& identity, RunMetadata& meta);

// What every front end that records a run calls when it ends (`run`, the C API and Python
// monitors, the libtorch `profile`): apply_cluster_identity of the environment's identity, its
// warnings added to the profile's.
void record_cluster_identity(Profile& profile, const EnvLookup& env = {});

// Combines per-rank profiles of one job into one cluster profile (meta.kind "merge"):
//  - every channel, series and summary is kept, its id prefixed "r<rank>@<host>/" (device too),
//    so nothing is added twice and each rank's channels stay visible;
//  - timelines are concatenated, tracks prefixed the same way; each profile's times are moved
//    onto the first profile's monotonic axis through the realtime anchors (the offset used per
//    rank is recorded in meta.options "merge.offset_ns.r<rank>");
//  - the trees are merged by path: energies, times and calls summed (times are rank-seconds),
//    static/dynamic summed when every rank has them, repetition statistics dropped (they do not
//    combine), provenance the least direct of the ranks' (measured < interpolated < imported <
//    estimated < simulated < predicted), with a warning where ranks disagree;
//  - totals per rank and per host go to meta.options ("merge.rank_energy_j.r<rank>",
//    "merge.host_energy_j.<host>");
//  - warnings are kept, prefixed by their rank; a partial rank makes the merge partial.
// A profile without a rank gets its position in `profiles`; two profiles with the same rank and
// host are an error naming both origins.
Result<Profile> merge_profiles(const std::vector<Profile>& profiles,
                               const std::vector<std::string>& origins);

}  // namespace jouleprof
