#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "jouleprof/cluster.hpp"
#include "jouleprof/history.hpp"
#include "report/sample_profile.hpp"

namespace jouleprof {
namespace {

Profile rank_profile(int rank, const std::string& host, double scale) {
  testing::SampleProfileOptions o;
  o.rank = rank;
  o.host = host;
  o.scale = scale;
  return testing::sample_profile(o);
}

// Profiles are move-only (their series own their samples).
template <typename... P>
std::vector<Profile> profiles(P&&... p) {
  std::vector<Profile> out;
  (out.push_back(std::forward<P>(p)), ...);
  return out;
}

TEST(MergeProfiles, TotalsPerRankAndHostAndOneTreeMergedByPath) {
  std::vector<Profile> ranks =
      profiles(rank_profile(0, "n1", 1.0), rank_profile(1, "n2", 2.0), rank_profile(2, "n3", 1.0));
  ProfileNode extra;
  extra.name = "only_on_r2";
  ranks[2].tree->children.front().children.front().children.push_back(extra);
  ranks[2].tree->children.back().provenance = Provenance::kEstimated;
  auto merged = merge_profiles(ranks, {"a.json", "b.json", "c.json"});
  ASSERT_TRUE(merged.ok()) << merged.error().message();
  const Profile& m = *merged;
  EXPECT_EQ(m.meta.kind, "merge");
  EXPECT_EQ(m.meta.world_size, 3);
  EXPECT_EQ(m.meta.host, "n1,n2,n3");
  EXPECT_DOUBLE_EQ(m.total_energy_j(), 280.0 * 4);
  EXPECT_DOUBLE_EQ(m.meta.options.merge.rank_energy_j.at("r1"), 560.0);
  EXPECT_DOUBLE_EQ(m.meta.options.merge.host_energy_j.at("n2"), 560.0);
  EXPECT_DOUBLE_EQ(m.meta.options.merge.host_energy_j.at("n3"), 280.0);
  EXPECT_EQ(m.meta.options.merge.origin.at("r2"), "c.json");
  // Channels prefixed by rank and host; nesting kept.
  ASSERT_NE(m.find_series("r1@n2/rapl:package-0"), nullptr);
  EXPECT_EQ(m.find_series("r1@n2/rapl:package-0/core")->channel().parent_id,
            "r1@n2/rapl:package-0");
  EXPECT_EQ(m.find_series("r2@n3/nvml:0:power")->channel().device, "r2@n3/gpu0");
  EXPECT_EQ(m.series.size(), 12u);
  // One tree: the same paths summed.
  ASSERT_TRUE(m.tree.has_value());
  EXPECT_DOUBLE_EQ(m.tree->energy_j, 280.0 * 4);
  const ProfileNode* addmm = m.tree->child("train_step")->child("forward")->child("aten::addmm");
  ASSERT_NE(addmm, nullptr);
  EXPECT_DOUBLE_EQ(addmm->energy_j, 50.0 * 4);
  EXPECT_EQ(addmm->calls, 9u);
  EXPECT_DOUBLE_EQ(addmm->energy_by_channel_j.at("r1@n2/rapl:package-0"), 20.0);
  EXPECT_NE(m.tree->child("train_step")->child("forward")->child("only_on_r2"), nullptr);
  EXPECT_DOUBLE_EQ(*m.tree->static_energy_j, 400.0);
  EXPECT_FALSE(m.tree->child("train_step")->child("backward")->energy_stats.has_value());
  EXPECT_EQ(m.tree->child("[unattributed]")->provenance, Provenance::kEstimated);
  bool mixed_warning = false;
  for (const std::string& w : m.warnings)
    mixed_warning |= w.find("[unattributed]") != std::string::npos;
  EXPECT_TRUE(mixed_warning);
  // Timelines concatenated with tracks prefixed; warnings prefixed by rank.
  EXPECT_EQ(m.timeline.spans().size(), 3 * ranks[0].timeline.spans().size());
  EXPECT_EQ(m.timeline.tracks()[2].name, "r1@n2/thread 4242");
  EXPECT_EQ(m.timeline.path_of(2 + 34), "train_step/forward/aten::addmm");  // parents re-indexed
  EXPECT_EQ(m.warnings.front().rfind("r0@n1: ", 0), 0u);
  // The merge is itself a profile that round-trips.
  auto back = profile_from_json_string(profile_to_json_string(m), "merged");
  ASSERT_TRUE(back.ok()) << back.error().message();
  EXPECT_DOUBLE_EQ(energy_total_of(*back), 1120.0);
}

// Different ranks measure different devices: a merged node's interval is the root sum of the
// ranks' half-widths about the sum of their centres, and a rank without one leaves none.
TEST(MergeProfiles, IntervalsOfRanksAddAsIndependentOnes) {
  std::vector<Profile> ranks = profiles(rank_profile(0, "n1", 1.0), rank_profile(1, "n2", 1.0));
  ranks[0].tree->band = EnergyBand{270.0, 290.0, UncertaintyTerm::kGain};
  ranks[1].tree->band = EnergyBand{265.0, 295.0, UncertaintyTerm::kSplit};
  const auto merged = merge_profiles(ranks, {"a.json", "b.json"});
  ASSERT_TRUE(merged.ok()) << merged.error().message();
  ASSERT_TRUE(merged->tree->band.has_value());
  const EnergyBand& band = *merged->tree->band;
  EXPECT_NEAR(0.5 * (band.low_j + band.high_j), 560.0, 1e-9);
  EXPECT_NEAR(band.half_width_j(), std::hypot(10.0, 15.0), 1e-9);
  EXPECT_EQ(band.dominant, UncertaintyTerm::kSplit);
  EXPECT_TRUE(band.contains(merged->tree->energy_j));
  ranks[1].tree->band.reset();
  EXPECT_FALSE(merge_profiles(ranks, {"a.json", "b.json"})->tree->band.has_value());
}

TEST(MergeProfiles, AlignsClocksThroughTheRealtimeAnchors) {
  Profile a = rank_profile(0, "n1", 1.0);
  Profile b = rank_profile(1, "n2", 1.0);
  // n2 booted 5 s later: the same wall-clock instant is 5 s less on its monotonic clock.
  b.meta.anchor.monotonic_ns -= 5 * kNsPerS;
  b.meta.begin_ns -= 5 * kNsPerS;
  b.meta.end_ns -= 5 * kNsPerS;
  ASSERT_TRUE(b.timeline.shift(-5 * kNsPerS));
  const TimeNs a_begin = a.meta.begin_ns;
  const TimeNs a_end = a.meta.end_ns;
  const TimeNs a_first_span = a.timeline.spans()[0].begin_ns;
  const std::size_t n = a.timeline.spans().size();
  auto merged = merge_profiles(profiles(std::move(a), std::move(b)), {"a", "b"});
  ASSERT_TRUE(merged.ok());
  EXPECT_EQ(merged->meta.options.merge.offset_ns.at("r1"), 5 * kNsPerS);
  EXPECT_EQ(merged->meta.begin_ns, a_begin);
  EXPECT_EQ(merged->meta.end_ns, a_end);
  EXPECT_EQ(merged->timeline.spans()[n].begin_ns, a_first_span);
}

// The observed processes' share of each top-level channel (package 40 J, GPU 240 J).
void observe(Profile& p, double package_j, double gpu_j) {
  p.channels[0].process =
      ProcessFigures{package_j, package_j / p.channels[0].energy_j, std::nullopt, 0.4, "cpu-time"};
  p.channels[2].process =
      ProcessFigures{gpu_j, gpu_j / p.channels[2].energy_j, std::nullopt, 0.4, "gpu-utilisation"};
}

bool has_warning(const Profile& p, std::string_view text) {
  return std::any_of(p.warnings.begin(), p.warnings.end(),
                     [&](const std::string& w) { return w.find(text) != std::string::npos; });
}

// Two ranks on one host read the same counters: the host is counted once, each rank gets its
// processes' share, the rest is [other processes], and the headline, the tree and the
// observed-process figure agree.
TEST(MergeProfiles, RanksOnOneHostGetTheirProcessesSharesAndEveryTotalAgrees) {
  std::vector<Profile> ranks = profiles(rank_profile(0, "n1", 1.0), rank_profile(1, "n1", 1.0));
  observe(ranks[0], 10.0, 90.0);
  observe(ranks[1], 15.0, 105.0);
  for (Profile& r : ranks) {
    for (ChannelSummary& c : r.channels) c.band = EnergyBand{c.energy_j - 1.0, c.energy_j + 1.0};
  }
  auto merged = merge_profiles(ranks, {"a", "b"});
  ASSERT_TRUE(merged.ok()) << merged.error().message();
  const Profile& m = *merged;
  EXPECT_DOUBLE_EQ(m.total_energy_j(), 280.0);
  EXPECT_EQ(m.find_series("r1@n1/rapl:package-0")->channel().parent_id, "r0@n1/rapl:package-0");
  EXPECT_EQ(m.find_series("r1@n1/rapl:package-0/core")->channel().parent_id,
            "r1@n1/rapl:package-0");
  EXPECT_DOUBLE_EQ(m.meta.options.merge.host_energy_j.at("n1"), 280.0);
  EXPECT_DOUBLE_EQ(m.meta.options.merge.rank_energy_j.at("r0"), 100.0);
  EXPECT_DOUBLE_EQ(m.meta.options.merge.rank_energy_j.at("r1"), 120.0);
  ASSERT_TRUE(m.total_process_energy_j().has_value());
  EXPECT_DOUBLE_EQ(*m.total_process_energy_j(), 220.0);
  ASSERT_TRUE(m.tree.has_value());
  EXPECT_NEAR(m.tree->energy_j, 280.0, 1e-9);
  const ProfileNode* others = m.tree->child("[other processes]");
  ASSERT_NE(others, nullptr);
  EXPECT_NEAR(others->energy_j, 60.0, 1e-9);
  // Each rank's tree was brought to its share: the step node of both together.
  const double step_share = 250.0 / 280.0;
  EXPECT_NEAR(m.tree->child("train_step")->energy_j, step_share * 220.0, 1e-9);
  // The root is the headline total: it has the channels' interval.
  ASSERT_TRUE(m.tree->band.has_value());
  EXPECT_TRUE(m.tree->band->contains(m.tree->energy_j));
  EXPECT_NEAR(m.tree->band->half_width_j(), m.total_energy_band()->half_width_j(), 1e-12);
  EXPECT_FALSE(has_warning(m, "over-counts"));
}

// Shares over windows a little apart can add up to more than the host's copy measured: fitted to
// it, the observed-process figure with them.
TEST(MergeProfiles, SharesAboveTheHostsEnergyAreFittedAndTheObservedFigureWithThem) {
  std::vector<Profile> ranks = profiles(rank_profile(0, "n1", 1.0), rank_profile(1, "n1", 1.0));
  observe(ranks[0], 30.0, 120.0);
  observe(ranks[1], 30.0, 120.0);
  auto merged = merge_profiles(ranks, {"a", "b"});
  ASSERT_TRUE(merged.ok()) << merged.error().message();
  EXPECT_DOUBLE_EQ(merged->meta.options.merge.rank_energy_j.at("r0"), 140.0);
  EXPECT_NEAR(*merged->total_process_energy_j(), 280.0, 1e-9);
  EXPECT_NEAR(merged->tree->energy_j, 280.0, 1e-9);
  EXPECT_TRUE(has_warning(*merged, "their shares are scaled down to it"));
}

TEST(MergeProfiles, RanksOnOneHostWithoutProcessSharesSplitItByTheirTotals) {
  auto merged =
      merge_profiles(profiles(rank_profile(0, "n1", 1.0), rank_profile(1, "n1", 3.0)), {"a", "b"});
  ASSERT_TRUE(merged.ok());
  EXPECT_DOUBLE_EQ(merged->total_energy_j(), 280.0);
  EXPECT_DOUBLE_EQ(merged->meta.options.merge.rank_energy_j.at("r0"), 70.0);
  EXPECT_DOUBLE_EQ(merged->meta.options.merge.rank_energy_j.at("r1"), 210.0);
  EXPECT_NEAR(merged->tree->energy_j, 280.0, 1e-9);
  EXPECT_EQ(merged->tree->child("[other processes]"), nullptr);
  EXPECT_TRUE(has_warning(*merged, "in proportion to their own totals"));
}

// Each rank's steps and their [communication] child make the wait table's figures.
TEST(MergeProfiles, RecordsEachRanksTimeAndEnergyInCollectives) {
  std::vector<Profile> ranks = profiles(rank_profile(0, "n1", 1.0), rank_profile(1, "n2", 1.0));
  for (std::size_t r = 0; r < ranks.size(); ++r) {
    ProfileNode communication;
    communication.name = "[communication]";
    communication.pass = Pass::kCommunication;
    communication.energy_j = 5.0 * static_cast<double>(r + 1);
    communication.time_ns = 100 * kNsPerMs * static_cast<TimeNs>(r + 1);
    ranks[r].tree->child("train_step")->children.push_back(communication);
  }
  auto merged = merge_profiles(ranks, {"a", "b"});
  ASSERT_TRUE(merged.ok());
  const RecordedOptions::Merge& m = merged->meta.options.merge;
  EXPECT_EQ(m.steps.at("r0"), 1u);
  EXPECT_DOUBLE_EQ(m.step_time_s.at("r1"), 1.8);
  EXPECT_DOUBLE_EQ(m.communication_time_s.at("r0"), 0.1);
  EXPECT_DOUBLE_EQ(m.communication_time_s.at("r1"), 0.2);
  EXPECT_DOUBLE_EQ(m.communication_energy_j.at("r1"), 10.0);
  const ProfileNode* merged_communication =
      merged->tree->child("train_step")->child("[communication]");
  ASSERT_NE(merged_communication, nullptr);
  EXPECT_DOUBLE_EQ(merged_communication->energy_j, 15.0);
  // They travel in the profile file.
  auto back = profile_from_json_string(profile_to_json_string(*merged), "merged");
  ASSERT_TRUE(back.ok()) << back.error().message();
  EXPECT_DOUBLE_EQ(back->meta.options.merge.communication_time_s.at("r1"), 0.2);
}

// A damaged anchor would date a rank's times centuries away; a negative rank is no rank.
TEST(MergeProfiles, ADamagedAnchorOrANegativeRankIsAnErrorNamingTheFile) {
  std::vector<Profile> ranks = profiles(rank_profile(0, "n1", 1.0), rank_profile(1, "n2", 1.0));
  ranks[1].meta.anchor.realtime_ns = -9'000'000'000'000'000'000;
  auto merged = merge_profiles(ranks, {"a.json", "b.json"});
  ASSERT_FALSE(merged.ok());
  EXPECT_NE(merged.error().message().find("b.json"), std::string::npos);
  EXPECT_NE(merged.error().message().find("meta.anchor"), std::string::npos);
  EXPECT_NE(merged.error().message().find("outside 1970–2200"), std::string::npos);

  ranks = profiles(rank_profile(0, "n1", 1.0), rank_profile(1, "n2", 1.0));
  ranks[1].meta.anchor.monotonic_ns -= 100 * kNsPerS;  // booted 100 s later: shifted forward
  ranks[1].meta.end_ns = std::numeric_limits<TimeNs>::max() - 10;
  merged = merge_profiles(ranks, {"a.json", "b.json"});
  ASSERT_FALSE(merged.ok());
  EXPECT_NE(merged.error().message().find("beyond what 64 bits of ns can count"), std::string::npos)
      << merged.error().message();

  ranks = profiles(rank_profile(0, "n1", 1.0), rank_profile(-5, "n2", 1.0));
  merged = merge_profiles(ranks, {"a.json", "b.json"});
  ASSERT_FALSE(merged.ok());
  EXPECT_NE(merged.error().message().find("'-5'"), std::string::npos) << merged.error().message();
}

// Ranks of one job run together under one world size: a merge of profiles that do not is warned
// of.
TEST(MergeProfiles, WarnsOfClockSkewMismatchedWorldSizesAndMissingRanks) {
  std::vector<Profile> ranks = profiles(rank_profile(0, "n1", 1.0), rank_profile(1, "n2", 1.0));
  ranks[1].meta.anchor.realtime_ns += 3600 * kNsPerS;  // n2's clock an hour ahead
  ranks[0].meta.world_size = 2;
  ranks[1].meta.world_size = 4;
  auto merged = merge_profiles(ranks, {"a.json", "b.json"});
  ASSERT_TRUE(merged.ok()) << merged.error().message();
  EXPECT_TRUE(has_warning(*merged, "r1 begins ")) << ::testing::PrintToString(merged->warnings);
  EXPECT_TRUE(has_warning(*merged, "after r0 on the common clock, and their runs do not overlap"));
  EXPECT_TRUE(has_warning(*merged, "disagree on the job's world size (2, 4)"));
  ranks = profiles(rank_profile(0, "n1", 1.0), rank_profile(1, "n2", 1.0));
  for (Profile& r : ranks) r.meta.world_size = 4;
  merged = merge_profiles(ranks, {"a.json", "b.json"});
  ASSERT_TRUE(merged.ok());
  EXPECT_TRUE(has_warning(*merged, "2 of the job's 4 ranks merged"));
  EXPECT_FALSE(has_warning(*merged, "begins "));
}

TEST(MergeProfiles, DuplicateRanksAreAnErrorNamingBothFiles) {
  auto merged = merge_profiles(profiles(rank_profile(0, "n1", 1.0), rank_profile(0, "n1", 1.0)),
                               {"x.json", "y.json"});
  ASSERT_FALSE(merged.ok());
  EXPECT_NE(merged.error().message().find("x.json"), std::string::npos);
  EXPECT_NE(merged.error().message().find("y.json"), std::string::npos);
  EXPECT_FALSE(merge_profiles({}, {}).ok());
}

TEST(MergeProfiles, ARankWithoutNumberIsNumberedByPositionWithAWarning) {
  Profile a = rank_profile(0, "n1", 1.0);
  Profile b = rank_profile(0, "n2", 1.0);
  b.meta.rank.reset();
  auto merged = merge_profiles(profiles(std::move(a), std::move(b)), {"a", "b"});
  ASSERT_TRUE(merged.ok());
  EXPECT_NE(merged->find_series("r1@n2/rapl:package-0"), nullptr);
  bool warned = false;
  for (const std::string& w : merged->warnings)
    warned |= w.find("b: no rank recorded; numbered 1") == 0;
  EXPECT_TRUE(warned);
}

}  // namespace
}  // namespace jouleprof
