// `jouleprof run --nvtx` end to end: a program's NVTX ranges come back as spans and the
// simulated source's energy is attributed to them; the tree sums to the measured total.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "jouleprof/attribution.hpp"
#include "jouleprof/profile.hpp"
#include "test_support.hpp"

namespace jouleprof {
namespace {

using testing::TempDir;

const ProfileNode* find_node(const ProfileNode& node, std::string_view name) {
  if (node.name == name) return &node;
  for (const ProfileNode& child : node.children) {
    if (const ProfileNode* found = find_node(child, name)) return found;
  }
  return nullptr;
}

void expect_epoch_tree(const std::string& program) {
  const TempDir dir;
  const std::string out = (dir.path() / "run").string();
  const std::string command = fmt::format(
      "'{}' run --nvtx --source simulated --simulate 30 --interval 2 --output '{}' -- '{}' > '{}' "
      "2>&1",
      JOULEPROF_CLI, out, program, (dir.path() / "log.txt").string());
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
  Result<Profile> profile = read_profile_json(out + "/profile.json");
  ASSERT_TRUE(profile) << profile.error().message();
  ASSERT_TRUE(profile->tree.has_value())
      << "no tree; warnings: " << fmt::format("{}", fmt::join(profile->warnings, "; "));
  const ProfileNode& tree = *profile->tree;
  EXPECT_NEAR(tree.energy_j, profile->total_energy_j(), 1e-6 * profile->total_energy_j());
  const ProfileNode* epoch = find_node(tree, "epoch");
  ASSERT_NE(epoch, nullptr);
  const ProfileNode* forward = find_node(*epoch, "forward");
  const ProfileNode* backward = find_node(*epoch, "backward");
  ASSERT_NE(forward, nullptr);
  ASSERT_NE(backward, nullptr);
  // The program busy-waits 60 ms in forward and 120 ms in backward (longer when the machine is
  // loaded). 30 W held constant: each range's energy is 30 W × its own time, whatever that was.
  EXPECT_GE(forward->time_ns, 60 * kNsPerMs);
  EXPECT_GE(backward->time_ns, 120 * kNsPerMs);
  EXPECT_NEAR(forward->energy_j, 30.0 * ns_to_s(forward->time_ns), 0.1 * forward->energy_j);
  EXPECT_NEAR(backward->energy_j, 30.0 * ns_to_s(backward->time_ns), 0.1 * backward->energy_j);
  ASSERT_NE(find_node(tree, kUnattributedNode), nullptr) << "the 30 ms before the epoch";
}

TEST(RunNvtx, FakeClientRangesAreAttributed) { expect_epoch_tree(JOULEPROF_FAKE_CLIENT_PROGRAM); }

#ifdef JOULEPROF_REAL_NVTX_PROGRAM
TEST(RunNvtx, RealNvtxHeadersRangesAreAttributed) {
  expect_epoch_tree(JOULEPROF_REAL_NVTX_PROGRAM);
}
#endif

}  // namespace
}  // namespace jouleprof
