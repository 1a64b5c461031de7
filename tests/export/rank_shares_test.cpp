#include "export/rank_shares.hpp"

#include <gtest/gtest.h>

namespace jouleprof::cluster {
namespace {

TEST(DivideHostEnergy, ARankGetsItsProcessesShareAndTheRestStaysTheHosts) {
  const HostDivision d = divide_host_energy(
      {{"r0", "n1", 100.0, 30.0}, {"r1", "n1", 100.0, 50.0}, {"r2", "n2", 80.0, 80.0}},
      {{"n1", 100.0}, {"n2", 80.0}});
  EXPECT_DOUBLE_EQ(d.rank_j[0], 30.0);
  EXPECT_DOUBLE_EQ(d.rank_j[1], 50.0);
  EXPECT_DOUBLE_EQ(d.rank_j[2], 80.0);
  EXPECT_DOUBLE_EQ(d.others_j.at("n1"), 20.0);
  EXPECT_DOUBLE_EQ(d.others_j.at("n2"), 0.0);
  EXPECT_TRUE(d.warnings.empty());
}

TEST(DivideHostEnergy, ALoneRankWithoutAShareGetsTheWholeHost) {
  const HostDivision d = divide_host_energy({{"r0", "n1", 100.0, std::nullopt}}, {{"n1", 100.0}});
  EXPECT_DOUBLE_EQ(d.rank_j[0], 100.0);
  EXPECT_DOUBLE_EQ(d.others_j.at("n1"), 0.0);
  EXPECT_TRUE(d.warnings.empty());
}

// Windows of a few milliseconds apart can make shares add up to a little more than the first
// rank's copy of the counter: fitted silently; by more than 1 %, with a warning naming the host.
TEST(DivideHostEnergy, SharesAboveTheHostsEnergyAreScaledDownToIt) {
  HostDivision d =
      divide_host_energy({{"r0", "n1", 100.0, 60.0}, {"r1", "n1", 100.0, 40.5}}, {{"n1", 100.0}});
  EXPECT_NEAR(d.rank_j[0] + d.rank_j[1], 100.0, 1e-12);
  EXPECT_TRUE(d.warnings.empty());
  d = divide_host_energy({{"r0", "n1", 100.0, 80.0}, {"r1", "n1", 100.0, 80.0}}, {{"n1", 100.0}});
  EXPECT_DOUBLE_EQ(d.rank_j[0], 50.0);
  EXPECT_DOUBLE_EQ(d.others_j.at("n1"), 0.0);
  ASSERT_EQ(d.warnings.size(), 1u);
  EXPECT_NE(d.warnings[0].find("n1"), std::string::npos);
  EXPECT_NE(d.warnings[0].find("60.0 %"), std::string::npos);
}

}  // namespace
}  // namespace jouleprof::cluster
