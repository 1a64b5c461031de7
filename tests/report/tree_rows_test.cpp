#include "report/tree_rows.hpp"

#include <gtest/gtest.h>

namespace jouleprof::report {
namespace {

TEST(TreeRows, RowsInPreOrderWithPaths) {
  ProfileNode root;
  root.name = "run";
  root.energy_j = 4.0;
  root.children.resize(2);
  root.children[0].name = "a";
  root.children[0].energy_j = 3.0;
  root.children[0].children.resize(1);
  root.children[0].children[0].name = "x";
  root.children[1].name = "b";
  const std::vector<TreeRow> rows = flatten_tree(root);
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[0].path, "run");
  EXPECT_EQ(rows[1].path, "run/a");
  EXPECT_EQ(rows[2].path, "run/a/x");
  EXPECT_EQ(rows[2].depth, 2);
  EXPECT_EQ(rows[3].path, "run/b");
  EXPECT_DOUBLE_EQ(rows[1].share, 0.75);
  EXPECT_TRUE(flatten_tree(root, false)[2].path.empty());
}

TEST(TreeRows, DeepPathsNameTheirLastLevels) {
  ProfileNode root;
  root.name = "run";
  ProfileNode* at = &root;
  for (int i = 0; i < 100'000; ++i) {
    at->children.resize(1);
    at = &at->children.front();
    at->name = std::to_string(i);
  }
  const std::vector<TreeRow> rows = flatten_tree(root);
  ASSERT_EQ(rows.size(), 100'001u);
  const std::string& last = rows.back().path;
  EXPECT_TRUE(last.starts_with("…99937 levels…/99936/")) << last.substr(0, 40);
  EXPECT_TRUE(last.ends_with("/99999"));
  EXPECT_LT(last.size(), 64u * 7u);
  EXPECT_EQ(rows[63].path.find("…"), std::string::npos);  // 64 names: run, 0 … 62
  EXPECT_EQ(rows[64].path.find("…1 levels…/0/"), 0u);
}

}  // namespace
}  // namespace jouleprof::report
