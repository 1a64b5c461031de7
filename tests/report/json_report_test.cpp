#include <gtest/gtest.h>

#include "jouleprof/report.hpp"
#include "report/sample_profile.hpp"

namespace jouleprof {
namespace {

TEST(JsonReport, ReadsBackAsTheSameProfile) {
  const Profile original = testing::sample_profile();
  auto text = render_report("json", original);
  ASSERT_TRUE(text.ok());
  auto back = profile_from_json_string(*text, "report.json");
  ASSERT_TRUE(back.ok()) << back.error().message();
  EXPECT_EQ(profile_to_json_string(*back), profile_to_json_string(original));
  ASSERT_TRUE(back->tree.has_value());
  EXPECT_DOUBLE_EQ(back->tree->energy_j, 280.0);
  EXPECT_EQ(back->timeline.spans().size(), original.timeline.spans().size());
}

}  // namespace
}  // namespace jouleprof
