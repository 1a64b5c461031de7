#include <gtest/gtest.h>

#include <map>

#include "jouleprof/cluster.hpp"

namespace jouleprof {
namespace {

EnvLookup env_of(std::map<std::string, std::string> vars) {
  auto shared = std::make_shared<std::map<std::string, std::string>>(std::move(vars));
  return [shared](const char* name) -> const char* {
    auto it = shared->find(name);
    return it == shared->end() ? nullptr : it->second.c_str();
  };
}

TEST(ClusterIdentity, Torchrun) {
  const auto id = detect_cluster_identity(env_of({{"RANK", "5"},
                                                  {"WORLD_SIZE", "8"},
                                                  {"LOCAL_RANK", "1"},
                                                  {"GROUP_RANK", "2"},
                                                  {"TORCHELASTIC_RUN_ID", "x"}}));
  EXPECT_EQ(id.launcher, "torchrun");
  EXPECT_EQ(id.rank, 5);
  EXPECT_EQ(id.world_size, 8);
  EXPECT_EQ(id.local_rank, 1);
  EXPECT_EQ(id.node_rank, 2);
  EXPECT_FALSE(id.host.empty());  // this machine's host name
  EXPECT_TRUE(id.warnings.empty());
}

TEST(ClusterIdentity, SlurmWithItsNodeName) {
  const auto id = detect_cluster_identity(env_of({{"SLURM_PROCID", "17"},
                                                  {"SLURM_NTASKS", "32"},
                                                  {"SLURM_LOCALID", "1"},
                                                  {"SLURM_NODEID", "4"},
                                                  {"SLURMD_NODENAME", "gpu-node-04"}}));
  EXPECT_EQ(id.launcher, "slurm");
  EXPECT_EQ(id.rank, 17);
  EXPECT_EQ(id.world_size, 32);
  EXPECT_EQ(id.local_rank, 1);
  EXPECT_EQ(id.node_rank, 4);
  EXPECT_EQ(id.host, "gpu-node-04");
}

TEST(ClusterIdentity, TorchrunInsideSlurmUsesTorchrunRanks) {
  const auto id = detect_cluster_identity(env_of({{"SLURM_PROCID", "0"},
                                                  {"SLURM_NTASKS", "2"},
                                                  {"SLURMD_NODENAME", "n1"},
                                                  {"RANK", "3"},
                                                  {"WORLD_SIZE", "16"},
                                                  {"LOCAL_RANK", "3"}}));
  EXPECT_EQ(id.launcher, "torchrun");
  EXPECT_EQ(id.rank, 3);
  EXPECT_EQ(id.world_size, 16);
  EXPECT_EQ(id.host, "n1");
}

TEST(ClusterIdentity, MpiFlavours) {
  auto ompi = detect_cluster_identity(env_of({{"OMPI_COMM_WORLD_RANK", "2"},
                                              {"OMPI_COMM_WORLD_SIZE", "4"},
                                              {"OMPI_COMM_WORLD_LOCAL_RANK", "0"}}));
  EXPECT_EQ(ompi.launcher, "openmpi");
  EXPECT_EQ(ompi.rank, 2);
  EXPECT_EQ(ompi.world_size, 4);
  EXPECT_EQ(ompi.local_rank, 0);
  auto mpich = detect_cluster_identity(env_of({{"PMI_RANK", "1"}, {"PMI_SIZE", "2"}}));
  EXPECT_EQ(mpich.launcher, "mpich");
  EXPECT_EQ(mpich.rank, 1);
  EXPECT_EQ(mpich.world_size, 2);
  auto mv =
      detect_cluster_identity(env_of({{"MV2_COMM_WORLD_RANK", "7"}, {"MV2_COMM_WORLD_SIZE", "8"}}));
  EXPECT_EQ(mv.launcher, "mvapich");
  EXPECT_EQ(mv.rank, 7);
}

TEST(ClusterIdentity, NoLauncherAndABareRankAreNotAJob) {
  const auto none = detect_cluster_identity(env_of({}));
  EXPECT_EQ(none.launcher, "");
  EXPECT_FALSE(none.rank.has_value());
  // RANK without LOCAL_RANK is too common a name to mean torchrun.
  EXPECT_EQ(detect_cluster_identity(env_of({{"RANK", "1"}})).launcher, "");
}

TEST(ClusterIdentity, BadValuesAreWarningsNamingTheVariable) {
  const auto id = detect_cluster_identity(env_of({{"SLURM_PROCID", "abc"}, {"SLURM_NTASKS", "4"}}));
  EXPECT_EQ(id.launcher, "slurm");
  EXPECT_FALSE(id.rank.has_value());
  ASSERT_EQ(id.warnings.size(), 1u);
  EXPECT_NE(id.warnings[0].find("SLURM_PROCID"), std::string::npos);
  EXPECT_NE(id.warnings[0].find("'abc'"), std::string::npos);
  const auto out_of_range = detect_cluster_identity(env_of({{"PMI_RANK", "4"}, {"PMI_SIZE", "4"}}));
  ASSERT_EQ(out_of_range.warnings.size(), 1u);
  EXPECT_NE(out_of_range.warnings[0].find("PMI_SIZE"), std::string::npos);
}

TEST(ClusterIdentity, AppliesToRunMetadata) {
  RunMetadata meta;
  meta.host = "old";
  apply_cluster_identity(detect_cluster_identity(env_of({{"SLURM_PROCID", "3"},
                                                         {"SLURM_NTASKS", "4"},
                                                         {"SLURM_NODEID", "1"},
                                                         {"SLURM_LOCALID", "1"},
                                                         {"SLURMD_NODENAME", "n2"}})),
                         meta);
  EXPECT_EQ(meta.rank, 3);
  EXPECT_EQ(meta.world_size, 4);
  EXPECT_EQ(meta.host, "n2");
  EXPECT_EQ(meta.options.cluster.launcher, "slurm");
  EXPECT_EQ(meta.options.cluster.local_rank, 1);
  EXPECT_EQ(meta.options.cluster.node_rank, 1);
}

}  // namespace
}  // namespace jouleprof
