// The environment variables by which a launcher (torchrun, Slurm, MPI) tells a process its rank:
// one table, read by detect_cluster_identity (export) and recorded in span dumps (timeline), so
// that a process's rank can be told after it has ended.
#pragma once

#include <array>

namespace jouleprof {

struct LauncherVariables {
  const char* launcher;
  const char* marker;  // present only under this launcher; nullptr = the rank variable itself
  const char* rank;
  const char* world_size;
  const char* local_rank;
  const char* node_rank;  // nullptr: the launcher has none
};

// In order of precedence: torchrun inside a Slurm allocation sets both, and torchrun's ranks are
// the ones the program uses.
inline constexpr std::array<LauncherVariables, 5> kLaunchers{{
    {"torchrun", "LOCAL_RANK", "RANK", "WORLD_SIZE", "LOCAL_RANK", "GROUP_RANK"},
    {"slurm", nullptr, "SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID", "SLURM_NODEID"},
    {"openmpi", nullptr, "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE",
     "OMPI_COMM_WORLD_LOCAL_RANK", nullptr},
    {"mvapich", nullptr, "MV2_COMM_WORLD_RANK", "MV2_COMM_WORLD_SIZE", "MV2_COMM_WORLD_LOCAL_RANK",
     nullptr},
    {"mpich", nullptr, "PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID", nullptr},
}};

// Names the host in a Slurm job (else the host name is the machine's).
inline constexpr const char* kSlurmHostVariable = "SLURMD_NODENAME";

// Every variable of the table above, and the host's: what a span dump records of its process's
// environment (nothing else of it, which may hold secrets).
template <typename Visit>
void for_each_launcher_variable(Visit&& visit) {
  for (const LauncherVariables& l : kLaunchers) {
    for (const char* name : {l.marker, l.rank, l.world_size, l.local_rank, l.node_rank}) {
      if (name != nullptr) visit(name);
    }
  }
  visit(kSlurmHostVariable);
}

}  // namespace jouleprof
