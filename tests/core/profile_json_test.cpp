#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "jouleprof/profile.hpp"
#include "test_support.hpp"

namespace jouleprof {
namespace {

Profile sample_profile() {
  Profile p;
  p.meta.tool_version = "test";
  p.meta.kind = "run";
  p.meta.command = {"sleep", "1"};
  p.meta.host = "host-a";
  p.meta.rank = 3;
  p.meta.anchor = ClockAnchor{100, 1'700'000'000'000'000'000};
  p.meta.begin_ns = 100;
  p.meta.end_ns = 2'000'000'100;
  p.meta.exit_code = 0;
  p.meta.options = {{"interval", "10ms"}};
  Channel pkg;
  pkg.id = "rapl:package-0";
  pkg.source = "rapl-powercap";
  pkg.device = "cpu0";
  pkg.domain = "package";
  Channel core = pkg;
  core.id = "rapl:package-0/core";
  core.domain = "core";
  core.parent_id = pkg.id;
  Series s(pkg);
  EXPECT_TRUE(s.append(100, 0.0));
  EXPECT_TRUE(s.append(1'000'000'100, 12.5));
  s.add_gap(Gap{5, 6, "zone vanished"});
  p.series.push_back(std::move(s));
  Series c(core);
  EXPECT_TRUE(c.append(100, 0.0));
  EXPECT_TRUE(c.append(1'000'000'100, 7.0));
  p.series.push_back(std::move(c));
  p.channels.push_back(ChannelSummary{"rapl:package-0", 12.5, 2.0, 10.5, 1'000'000'000, 12.5, 14.0,
                                      Provenance::kMeasured});
  p.channels.push_back(ChannelSummary{"rapl:package-0/core", 7.0, std::nullopt, std::nullopt,
                                      1'000'000'000, 7.0, 8.0, Provenance::kMeasured});
  const auto track = p.timeline.add_track(Track{TrackKind::kGpuStream, "stream 7", "gpu0"});
  const auto attrs = p.timeline.add_attributes({{"shape", "[32,128]"}});
  Span span{200,
            300,
            track,
            p.timeline.intern("gemm"),
            kNoIndex,
            attrs,
            SpanCategory::kKernel,
            Pass::kBackward};
  p.timeline.add_span(span);
  p.timeline.add_mark(Mark{250, track, p.timeline.intern("epoch_end")});
  ProfileNode root;
  root.name = "run";
  root.energy_j = 12.5;
  root.time_ns = 1'000'000'000;
  ProfileNode child;
  child.name = "gemm";
  child.category = SpanCategory::kKernel;
  child.energy_j = 10.0;
  child.static_energy_j = 1.0;
  child.dynamic_energy_j = 9.0;
  child.energy_by_channel_j = {{"rapl:package-0", 10.0}};
  child.energy_stats = RepetitionStats{4, 10.0, 10.1, 0.2, 9.7, 10.3};
  root.children.push_back(child);
  p.tree = root;
  p.attribution.push_back(AttributionRecord{
      "rapl:package-0", "interpolate", "fine counter", {{"update_period_ms", 1.0}}, {"note"}});
  p.epochs.push_back(EpochSummary{150, 260, 3.5, 12});
  p.warnings.push_back("something was missing");
  return p;
}

TEST(ProfileJson, RoundTripIsIdentical) {
  const Profile original = sample_profile();
  const std::string text = profile_to_json_string(original);
  const Result<Profile> back = profile_from_json_string(text, "memory");
  ASSERT_TRUE(back) << back.error().message();
  EXPECT_EQ(profile_to_json_string(*back), text);
  EXPECT_EQ(back->series[0].gaps().size(), 1u);
  EXPECT_EQ(back->timeline.spans()[0].pass, Pass::kBackward);
  ASSERT_EQ(back->epochs.size(), 1u);
  EXPECT_EQ(back->epochs[0].counter_updates, 12u);
  EXPECT_EQ(back->epochs[0].duration_ns(), 110);
}

TEST(ProfileJson, AProfileWithoutEpochsStillReads) {
  nlohmann::json j = nlohmann::json::parse(profile_to_json_string(sample_profile()));
  j.erase("epochs");
  const Result<Profile> back = profile_from_json_string(j.dump(), "old.json");
  ASSERT_TRUE(back) << back.error().message();
  EXPECT_TRUE(back->epochs.empty());
}

TEST(ProfileJson, AnEpochEndingBeforeItBeginsIsRefused) {
  nlohmann::json j = nlohmann::json::parse(profile_to_json_string(sample_profile()));
  j["epochs"][0]["end_ns"] = 100;
  const Result<Profile> bad = profile_from_json_string(j.dump(), "p.json");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message().find("epochs[0].end_ns"), std::string::npos)
      << bad.error().message();
}

// Process figures, busy-time series and a model's static power survive a round trip; a profile
// written before them reads with none.
TEST(ProfileJson, ProcessFiguresRoundTripAndOldProfilesHaveNone) {
  Profile p = sample_profile();
  const std::string old_text = profile_to_json_string(p);
  Channel busy;
  busy.id = "processes:cpu:cpu-time";
  busy.source = "processes";
  busy.device = "cpu";
  busy.domain = "cpu-time";
  busy.kind = ChannelKind::kBusyTime;
  Series s(busy);
  EXPECT_TRUE(s.append(100, 0.0));
  EXPECT_TRUE(s.append(1'000'000'100, 0.75));
  p.series.push_back(std::move(s));
  Channel estimate = p.series[0].channel();
  estimate.id = "cpu-estimate:package";
  estimate.static_power_w = 9.0;
  p.series.emplace_back(estimate);
  p.channels[0].process = ProcessFigures{9.375, 0.75, {}, {}, ""};
  p.channels[0].process->dynamic_energy_j = 7.875;
  p.channels[0].process->others_activity_share = 0.25;
  p.channels[0].process->rule = "cpu-time";
  p.tree->provenance = Provenance::kAttributed;
  const std::string text = profile_to_json_string(p);
  const Result<Profile> back = profile_from_json_string(text, "memory");
  ASSERT_TRUE(back) << back.error().message();
  EXPECT_EQ(profile_to_json_string(*back), text);
  EXPECT_EQ(back->channels[0].process->rule, "cpu-time");
  EXPECT_EQ(back->channels[0].process->share, 0.75);
  EXPECT_EQ(back->find_series("processes:cpu:cpu-time")->channel().kind, ChannelKind::kBusyTime);
  EXPECT_EQ(back->find_series("cpu-estimate:package")->channel().static_power_w, 9.0);
  EXPECT_EQ(back->total_process_energy_j(), 9.375);

  const Result<Profile> old = profile_from_json_string(old_text, "old");
  ASSERT_TRUE(old) << old.error().message();
  EXPECT_FALSE(old->channels[0].process.has_value());
  EXPECT_FALSE(old->series[0].channel().static_power_w.has_value());
  EXPECT_FALSE(old->total_process_energy_j().has_value());
  EXPECT_EQ(old_text.find("process_"), std::string::npos) << "no keys without figures";
}

TEST(ProfileJson, TotalAddsOnlyTopLevelChannels) {
  EXPECT_DOUBLE_EQ(sample_profile().total_energy_j(), 12.5);
}

TEST(ProfileJson, TheTotalIsAsDirectAsItsLeastDirectTopLevelChannel) {
  Profile p = sample_profile();
  EXPECT_EQ(p.total_provenance(), Provenance::kMeasured);
  // A nested channel is not part of the total: its provenance does not count.
  p.channels[1].provenance = Provenance::kSimulated;
  EXPECT_EQ(p.total_provenance(), Provenance::kMeasured);
  p.channels[0].provenance = Provenance::kEstimated;
  EXPECT_EQ(p.total_provenance(), Provenance::kEstimated);
  // Without channel summaries the tree's root says where the total came from.
  p.channels.clear();
  p.tree->provenance = Provenance::kImported;
  EXPECT_EQ(p.total_provenance(), Provenance::kImported);
  EXPECT_EQ(Profile{}.total_provenance(), Provenance::kMeasured);
  EXPECT_EQ(less_direct(Provenance::kMeasured, Provenance::kPredicted), Provenance::kPredicted);
  EXPECT_EQ(less_direct(Provenance::kSimulated, Provenance::kEstimated), Provenance::kSimulated);
  EXPECT_TRUE(is_modelled(Provenance::kSimulated));
  EXPECT_FALSE(is_modelled(Provenance::kInterpolated));
}

TEST(ProfileJson, FileRoundTrip) {
  testing::TempDir dir;
  const std::string path = (dir.path() / "profile.json").string();
  ASSERT_TRUE(write_profile_json(sample_profile(), path));
  const Result<Profile> back = read_profile_json(path);
  ASSERT_TRUE(back) << back.error().message();
  EXPECT_EQ(back->meta.host, "host-a");
}

TEST(ProfileJson, BadInputNamesTheField) {
  std::string text = profile_to_json_string(sample_profile());
  const auto pos = text.find("\"provenance\":\"measured\"");
  ASSERT_NE(pos, std::string::npos);
  text.replace(pos, 23, "\"provenance\":\"guessed\"");
  const Result<Profile> bad = profile_from_json_string(text, "p.json");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message().find("p.json"), std::string::npos);
  EXPECT_NE(bad.error().message().find("guessed"), std::string::npos);
  EXPECT_FALSE(profile_from_json_string("{not json", "p.json"));
  EXPECT_FALSE(read_profile_json("/nonexistent/profile.json"));
}

}  // namespace
}  // namespace jouleprof
