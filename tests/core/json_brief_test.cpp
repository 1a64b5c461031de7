#include "core/json_brief.hpp"

#include <gtest/gtest.h>

namespace jouleprof {
namespace {

using nlohmann::json;

TEST(JsonBrief, ScalarsAndSmallFlatValuesAsText) {
  EXPECT_EQ(json_brief(json(3.5)), "3.5");
  EXPECT_EQ(json_brief(json("w")), "\"w\"");
  EXPECT_EQ(json_brief(json::parse(R"([1,2,"x"])")), R"([1,2,"x"])");
  EXPECT_EQ(json_brief(json::parse(R"({"min":1})")), R"({"min":1})");
}

TEST(JsonBrief, DeepOrLargeValuesBySize) {
  // 100 000 nested arrays: nlohmann's dump() would recurse that deep.
  const std::string deep = std::string(100'000, '[') + std::string(100'000, ']');
  EXPECT_EQ(json_brief(json::parse(deep)), "an array of 1 element");
  json many = json::object();
  for (int i = 0; i < 20; ++i) many[std::to_string(i)] = i;
  EXPECT_EQ(json_brief(many), "an object of 20 members");
  const std::string brief = json_brief(json(std::string(1000, 'a')));
  EXPECT_NE(brief.find("(cut, 1000 bytes in all)"), std::string::npos);
  EXPECT_LT(brief.size(), 120u);
  EXPECT_NO_THROW(json_brief(json(std::string("\xff\xfe invalid UTF-8"))));
}

}  // namespace
}  // namespace jouleprof
