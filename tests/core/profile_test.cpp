#include "jouleprof/profile.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "core/unread_channel.hpp"

namespace jouleprof {
namespace {

// A chain `levels` deep under a root, each node named by its depth.
ProfileNode chain(int levels) {
  ProfileNode root;
  root.name = "0";
  ProfileNode* at = &root;
  for (int i = 1; i <= levels; ++i) {
    at->children.emplace_back();
    at = &at->children.back();
    at->name = std::to_string(i);
    at->energy_j = 1.0;
  }
  return root;
}

TEST(ProfileNode, DeepTreesCopyAndDestroyWithoutRecursion) {
  // Deeper than an 8 MB stack holds recursive copies or destructors of.
  ProfileNode deep = chain(200'000);
  ProfileNode copy = deep;
  int depth = 0;
  for (const ProfileNode* n = &copy; !n->children.empty(); n = &n->children.front()) ++depth;
  EXPECT_EQ(depth, 200'000);
  copy = chain(3);
  EXPECT_EQ(copy.children.front().children.front().children.front().name, "3");
}

TEST(ProfileNode, WalksVisitEveryNodeInOrder) {
  ProfileNode root;
  root.name = "r";
  root.children.resize(2);
  root.children[0].name = "a";
  root.children[0].children.resize(1);
  root.children[0].children[0].name = "a1";
  root.children[1].name = "b";
  std::string pre;
  walk_tree(root, [&](const ProfileNode& n, int depth) { pre += n.name + std::to_string(depth); });
  EXPECT_EQ(pre, "r0a1a12b1");
  std::string skipped;
  walk_tree(root, [&](const ProfileNode& n, int) {
    skipped += n.name;
    return n.name != "a";
  });
  EXPECT_EQ(skipped, "rab");
  std::string post;
  walk_tree_post_order(root, [&](ProfileNode& n) { post += n.name; });
  EXPECT_EQ(post, "a1abr");
  int visited = 0;
  const ProfileNode deep = chain(200'000);
  walk_tree_post_order(deep, [&](const ProfileNode&) { ++visited; });
  EXPECT_EQ(visited, 200'001);
}

TEST(ProfileFigures, ImpossibleFiguresAreNamed) {
  Profile p;
  EXPECT_TRUE(figure_problems(p).empty());
  ProfileNode root;
  root.name = "run";
  root.energy_j = 1.0;
  root.children.resize(1);
  root.children[0].name = "gemm";
  root.children[0].energy_j = 45.45;
  p.tree = root;
  std::vector<std::string> problems = figure_problems(p);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_NE(problems[0].find("the tree does not sum"), std::string::npos) << problems[0];
  EXPECT_NE(problems[0].find("run (1 J, its children 45.45 J)"), std::string::npos) << problems[0];

  p.tree->children[0].energy_j = -0.5;
  p.channels.push_back(ChannelSummary{"meter", std::nan(""), {}, {}, 0, 0.0, 0.0, {}});
  problems = figure_problems(p);
  ASSERT_EQ(problems.size(), 2u);
  // Said in words: a warning printing "nan" would be what it warns of.
  EXPECT_NE(problems[0].find("channel meter (not a number)"), std::string::npos) << problems[0];
  EXPECT_NE(problems[1].find("run/gemm (-0.5 J)"), std::string::npos) << problems[1];

  // Beyond what any run can consume (core/figure_bounds.hpp): named, without the figure.
  p.channels.clear();
  p.tree->energy_j = p.tree->children[0].energy_j = 1e308;
  problems = figure_problems(p);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_NE(problems[0].find("2 energy figure(s) beyond the 1e+15 J any run can consume"),
            std::string::npos)
      << problems[0];
  EXPECT_NE(problems[0].find("run; run/gemm"), std::string::npos) << problems[0];
  EXPECT_EQ(problems[0].find("e+308"), std::string::npos) << problems[0];
  p.tree->energy_j = 1.0;
  p.tree->children[0].energy_j = -0.5;

  // A top-level channel that never gave a reading: its 0 J is no measurement.
  Channel package;
  package.id = "rapl:package-0";
  package.kind = ChannelKind::kEnergyCounter;
  p.series.emplace_back(package);
  p.channels.push_back(ChannelSummary{"rapl:package-0", 0.0, {}, {}, 0, 0.0, 0.0, {}});
  p.tree->children[0].energy_j = 0.5;
  problems = figure_problems(p);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_NE(problems[0].find("1 channel(s) with no reading at all"), std::string::npos)
      << problems[0];
  EXPECT_TRUE(has_no_reading(p, p.channels[0]));
  ASSERT_TRUE(p.series[0].append(0, 1.0));
  EXPECT_TRUE(figure_problems(p).empty());
  p.series.clear();
  p.tree->children[0].energy_j = -0.5;

  // A battery may give energy back (charging): negative figures are then no problem.
  p.channels.clear();
  Channel battery;
  battery.id = "battery";
  battery.domain = "battery";
  p.series.emplace_back(battery);
  EXPECT_TRUE(figure_problems(p).empty());
}

}  // namespace
}  // namespace jouleprof
