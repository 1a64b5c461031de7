#include "jouleprof/attribute_table.hpp"

#include <gtest/gtest.h>

#include <array>
#include <string>

namespace jouleprof {
namespace {

TEST(AttributeTable, KeepsEachSetsPairsInTheOrderGiven) {
  AttributeTable table;
  EXPECT_TRUE(table.empty());
  const Attributes shapes{{"input_dims", "[[32, 768]]"}, {"op", "MatMul"}};
  const Attributes kernel{{"correlation", "17"}, {"launch_span", "4"}, {"bytes", "8"}};
  EXPECT_EQ(table.add(shapes), 0U);
  EXPECT_EQ(table.add(Attributes{}), 1U);
  EXPECT_EQ(table.add(kernel), 2U);
  ASSERT_EQ(table.size(), 3U);
  EXPECT_EQ(table[0], shapes);
  EXPECT_TRUE(table[1].empty());
  EXPECT_EQ(table[2], kernel);
  EXPECT_EQ(table[2].to_attributes(), kernel);
  EXPECT_EQ(table[2].size(), 3U);
  EXPECT_FALSE(table[0] == kernel);
}

TEST(AttributeTable, FindsAValueByKeyAndSaysWhenThereIsNone) {
  AttributeTable table;
  table.add(Attributes{{"step", "3"}, {"step", "4"}, {"empty", ""}});
  EXPECT_EQ(table[0].find("step"), "3");  // the first of a repeated key
  EXPECT_EQ(table[0].find("empty"), "");
  EXPECT_EQ(table[0].find("missing"), std::nullopt);
}

TEST(AttributeTable, ViewsAddedWithoutCopiesAreStoredAsTheirText) {
  AttributeTable table;
  std::string correlation = "123456";
  const std::array<AttributeSet::Entry, 2> entries{AttributeSet::Entry{"correlation", correlation},
                                                   AttributeSet::Entry{"bytes", "4096"}};
  table.add(std::span<const AttributeSet::Entry>(entries));
  correlation = "overwritten";
  EXPECT_EQ(table[0], (Attributes{{"correlation", "123456"}, {"bytes", "4096"}}));
}

TEST(AttributeTable, CopiesSetsFromAnotherTableAndFromItself) {
  AttributeTable rank0;
  rank0.add(Attributes{{"bytes", "8"}});
  rank0.add(Attributes{{"correlation", "1"}, {"launch_span", "0"}});
  AttributeTable merged;
  merged.add(Attributes{{"op", "Conv2D"}});
  for (const AttributeSet set : rank0) merged.add(set);
  ASSERT_EQ(merged.size(), 3U);
  EXPECT_EQ(merged[1], rank0[0]);
  EXPECT_EQ(merged[2], rank0[1]);
  // A set of the table itself: its views would move as the table grows.
  for (int i = 0; i < 100; ++i) merged.add(merged[2]);
  EXPECT_EQ(merged[102], rank0[1]);
}

TEST(AttributeTable, TablesAreEqualWhenEverySetIs) {
  AttributeTable a;
  AttributeTable b;
  a.add(Attributes{{"k", "v"}});
  b.add(Attributes{{"k", "v"}});
  EXPECT_EQ(a, b);
  b.add(Attributes{});
  EXPECT_FALSE(a == b);
  a.add(Attributes{{"k", ""}});
  EXPECT_FALSE(a == b);
}

}  // namespace
}  // namespace jouleprof
