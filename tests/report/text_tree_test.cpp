#include "report/text_tree.hpp"

#include <gtest/gtest.h>

namespace jouleprof::report {
namespace {

ProfileNode node(const std::string& name, double e, TimeNs t) {
  ProfileNode n;
  n.name = name;
  n.energy_j = e;
  n.time_ns = t;
  n.calls = 1;
  return n;
}

TEST(TextTree, PrintsSharesPowerAndDepth) {
  ProfileNode root = node("run", 10.0, kNsPerS);
  root.children = {node("small", 1.0, kNsPerS / 2), node("big", 9.0, kNsPerS / 2)};
  root.children[1].children = {node("leaf", 9.0, kNsPerS / 2)};
  const std::string all = format_profile_tree(root);
  EXPECT_NE(all.find("├─ big"), std::string::npos) << all;
  EXPECT_NE(all.find("│  └─ leaf"), std::string::npos) << all;
  EXPECT_NE(all.find("90.0%"), std::string::npos);
  EXPECT_NE(all.find("18.0"), std::string::npos);  // 9 J over 0.5 s
  EXPECT_LT(all.find("big"), all.find("small"));   // largest first
  const std::string shallow = format_profile_tree(root, TextTreeOptions{1, 0.0});
  EXPECT_EQ(shallow.find("leaf"), std::string::npos);
  const std::string top = format_profile_tree(root, TextTreeOptions{-1, 0.0, 1});
  EXPECT_NE(top.find("(1 more)"), std::string::npos) << top;
}

TEST(TextTree, AlignsTableColumns) {
  const std::string t = format_text_table({"a", "b"}, {{"x", "1"}, {"long name", "22"}});
  EXPECT_EQ(t, "a           b\nx           1\nlong name  22\n");
}

TEST(TextTree, DeepTreesKeepTheirGuidesNarrow) {
  ProfileNode root = node("run", 1.0, kNsPerS);
  ProfileNode* at = &root;
  for (int i = 1; i <= 3000; ++i) {
    at->children = {node("level_" + std::to_string(i), 1.0, kNsPerS)};
    at = &at->children.front();
  }
  const std::string text = format_profile_tree(root);
  EXPECT_NE(text.find("[depth 3000] level_3000"), std::string::npos);
  std::size_t widest = 0;
  for (std::size_t begin = 0; begin < text.size();) {
    const std::size_t end = std::min(text.find('\n', begin), text.size());
    widest = std::max(widest, end - begin);
    begin = end + 1;
  }
  EXPECT_LT(widest, 400u) << "a 3000-level tree may not print 3000 guides a line";
}

}  // namespace
}  // namespace jouleprof::report
