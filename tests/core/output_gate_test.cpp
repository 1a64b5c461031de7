// The output half of the plausibility gate on a whole profile, and profile.json written through
// it: no figure beyond its bound is stored, the file says which it withheld, and it reads back.
#include "core/output_gate.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "core/profile_json_text.hpp"
#include "report/sample_profile.hpp"
#include "test_support.hpp"

namespace jouleprof {
namespace {

Profile profile_with_child_energy(double child_j) {
  Profile p;
  p.meta.kind = "attribute";
  ProfileNode root;
  root.name = "run";
  ProfileNode child;
  child.name = "gemm";
  child.energy_j = child.self_energy_j = child_j;
  child.energy_by_channel_j["gpu0"] = child_j;
  root.energy_j = child_j;
  root.children.push_back(child);
  p.tree = root;
  return p;
}

ChannelSummary gpu0_channel(double energy_j, double mean_power_w, double peak_power_w) {
  ChannelSummary c;
  c.channel_id = "gpu0";
  c.energy_j = energy_j;
  c.mean_power_w = mean_power_w;
  c.peak_power_w = peak_power_w;
  return c;
}

TEST(OutputGate, ASoundProfileIsNotCopied) {
  EXPECT_FALSE(withheld_for_output(profile_with_child_energy(12.5)).has_value());
}

TEST(OutputGate, AFigureBeyondItsBoundIsWithheldAndNamed) {
  const std::optional<Profile> flagged = withheld_for_output(profile_with_child_energy(1e308));
  ASSERT_TRUE(flagged.has_value());
  const ProfileNode& child = flagged->tree->children.front();
  EXPECT_TRUE(std::isnan(child.energy_j));
  EXPECT_TRUE(std::isnan(child.energy_by_channel_j.at("gpu0")));
  // Why it was withheld, and what it is now: the one warning a profile read back would add.
  ASSERT_EQ(flagged->warnings.size(), 2u);
  EXPECT_NE(flagged->warnings.front().find("2 energy figure(s) beyond the 1e+15 J"),
            std::string::npos)
      << flagged->warnings.front();
  EXPECT_NE(flagged->warnings.front().find("run/gemm"), std::string::npos);
  EXPECT_NE(flagged->warnings.back().find("run/gemm (not a number)"), std::string::npos)
      << flagged->warnings.back();
}

TEST(OutputGate, ProfileJsonStoresNoImpossibleFigureAndReadsBack) {
  testing::TempDir dir;
  const std::string path = (dir.path() / "profile.json").string();
  const Profile impossible = profile_with_child_energy(1e308);
  ASSERT_NE(ungated_profile_json(impossible, -1, ProfileArrays::kExpanded).find("1e+308"),
            std::string::npos);
  ASSERT_TRUE(write_profile_json(impossible, path));
  const std::string text = testing::read_file(path);
  EXPECT_EQ(text.find("e+308"), std::string::npos) << text;
  EXPECT_EQ(profile_to_json_string(impossible).find("e+308"), std::string::npos);

  const Result<Profile> back = read_profile_json(path);
  ASSERT_TRUE(back) << back.error().message();
  EXPECT_TRUE(std::isnan(back->tree->children.front().energy_j));
  EXPECT_TRUE(std::isnan(back->tree->children.front().energy_by_channel_j.at("gpu0")));
  ASSERT_FALSE(back->warnings.empty());
  EXPECT_NE(back->warnings.front().find("beyond the 1e+15 J"), std::string::npos);
}

TEST(OutputGate, AChannelFigureBeyondItsBoundIsWithheldInTheFile) {
  Profile p = profile_with_child_energy(1.0);
  p.channels.push_back(gpu0_channel(1.0, 1e300, 1e300));
  const std::string text = profile_to_json_string(p);
  EXPECT_EQ(text.find("e+300"), std::string::npos) << text;
  const Result<Profile> back = profile_from_json_string(text, "gated");
  ASSERT_TRUE(back) << back.error().message();
  EXPECT_TRUE(std::isnan(back->channels.front().mean_power_w));
  EXPECT_DOUBLE_EQ(back->channels.front().energy_j, 1.0);
}

TEST(OutputGate, AWarningIsNotRepeatedWhenAProfileIsWrittenAgain) {
  Profile p = profile_with_child_energy(2.0);
  p.tree->energy_j = 1.0;  // its child holds more than it: warned of, not withheld
  const std::string once = profile_to_json_string(p);
  const Result<Profile> back = profile_from_json_string(once, "once");
  ASSERT_TRUE(back) << back.error().message();
  ASSERT_EQ(back->warnings.size(), 1u);
  EXPECT_EQ(profile_to_json_string(*back), once);
}

// Each kind of figure the gate withholds: the file written once is the file written again
// (fuzz/crashes/profile_json/channel_power_withheld_twice: a channel's mean power of 1.9e16 W).
TEST(OutputGate, AProfileWithWithheldFiguresIsWrittenAgainUnchanged) {
  Profile beyond_node = profile_with_child_energy(1e308);
  Profile beyond_power = profile_with_child_energy(1.0);
  beyond_power.channels.push_back(gpu0_channel(5.0, 1.9e16, 20.0));
  Profile never_read = testing::sample_profile();
  never_read.channels.front().energy_j = 0.0;
  for (Series& s : never_read.series) {
    if (s.channel().id == never_read.channels.front().channel_id) s = Series(s.channel());
  }
  for (const Profile* p : {&beyond_node, &beyond_power, &never_read}) {
    for (const ProfileArrays arrays : {ProfileArrays::kExpanded, ProfileArrays::kPacked}) {
      const std::string once = profile_to_json_string(*p, -1, arrays);
      const Result<Profile> back = profile_from_json_string(once, "once");
      ASSERT_TRUE(back) << back.error().message();
      EXPECT_EQ(profile_to_json_string(*back, -1, arrays), once);
    }
  }
}

}  // namespace
}  // namespace jouleprof
