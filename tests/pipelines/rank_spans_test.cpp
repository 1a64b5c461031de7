// Spans of several ranks in one run (`jouleprof run --spans -- torchrun …`): each rank's dump
// keeps its launcher's variables, the dumps are attributed together under a [rank N] node each,
// a rank's collectives stay with its own steps, and the ranks' profiles merge into figures that
// agree with the run's.
#include "pipelines/rank_spans.hpp"

#include <gtest/gtest.h>

#include <string>

#include "jouleprof/recording_attribution.hpp"
#include "pipelines/ten_watt_run.hpp"
#include "test_support.hpp"

namespace jouleprof {
namespace {

using ::jouleprof::testing::TempDir;

// The 10 W recording, with the channel summary a run gives it, on one host.
Profile ten_watt_run() {
  Profile p = ::jouleprof::testing::ten_watt_run();
  ChannelSummary meter;
  meter.channel_id = "meter";
  meter.energy_j = 10.0;
  meter.duration_ns = kNsPerS;
  meter.mean_power_w = meter.peak_power_w = 10.0;
  p.channels.push_back(meter);
  p.meta.host = "node1";
  return p;
}

struct DumpSpan {
  const char* name;
  int track;
  int begin_ms;
  int end_ms;
  int parent = -1;
  SpanCategory category = SpanCategory::kRegion;
};

// A dump of process `pid` with `threads` (named as the recorder names them) and spans; times in
// ms after 0, parents by index; `rank` < 0: no launcher.
void write_dump(const TempDir& dir, int pid, int rank, std::vector<int> threads,
                std::vector<DumpSpan> spans) {
  SpanDump dump;
  dump.pid = pid;
  if (rank >= 0) {
    dump.launcher_environment = {
        {"LOCAL_RANK", std::to_string(rank)}, {"RANK", std::to_string(rank)}, {"WORLD_SIZE", "2"}};
  }
  for (int tid : threads) {
    dump.timeline.add_track(Track{TrackKind::kCpuThread, "thread " + std::to_string(tid), "cpu0"});
  }
  for (const DumpSpan& d : spans) {
    Span s;
    s.begin_ns = d.begin_ms * kNsPerMs;
    s.end_ns = d.end_ms * kNsPerMs;
    s.track = static_cast<std::uint32_t>(d.track);
    s.name = dump.timeline.intern(d.name);
    s.parent = d.parent < 0 ? kNoIndex : static_cast<std::uint32_t>(d.parent);
    s.category = d.category;
    dump.timeline.add_span(s);
  }
  const std::string path = (dir.path() / ("spans-" + std::to_string(pid) + ".json")).string();
  ASSERT_TRUE(write_span_dump(dump, path).ok());
}

// Rank 0 steps over [1.1 s, 1.5 s); rank 1 over [1.2 s, 1.6 s), its gloo thread all-reducing in
// [1.3 s, 1.4 s), while both ranks' steps run; the launcher's own process recorded nothing.
void write_two_ranks(const TempDir& dir) {
  write_dump(dir, 100, 0, {11},
             {{"step", 0, 1100, 1500, -1, SpanCategory::kStep}, {"fwd", 0, 1100, 1300, 0}});
  write_dump(dir, 200, 1, {21, 22},
             {{"step", 0, 1200, 1600, -1, SpanCategory::kStep},
              {"fwd", 0, 1200, 1300, 0},
              {"gloo:all_reduce", 1, 1300, 1400}});
  write_dump(dir, 50, -1, {5}, {});
}

const ProfileNode* find(const ProfileNode& node, const std::vector<std::string>& path) {
  const ProfileNode* at = &node;
  for (const std::string& name : path) {
    at = at->child(name);
    if (at == nullptr) return nullptr;
  }
  return at;
}

TEST(RankSpans, ADumpKeepsTheLaunchersVariablesAndTheirRankIsRead) {
  TempDir dir;
  write_two_ranks(dir);
  std::vector<std::string> warnings;
  const std::vector<ChildDump> dumps = read_child_dumps(dir.path().string(), warnings);
  EXPECT_TRUE(warnings.empty());
  ASSERT_EQ(dumps.size(), 3u);
  EXPECT_EQ(dumps[0].dump.pid, 100);  // by file name
  EXPECT_EQ(dumps[0].identity.launcher, "torchrun");
  EXPECT_EQ(dumps[1].identity.rank, 1);
  EXPECT_EQ(dumps[1].identity.world_size, 2);
  EXPECT_FALSE(dumps[2].identity.rank.has_value());
  EXPECT_EQ(ranks_of(dumps), (std::vector<int>{0, 1}));
  EXPECT_TRUE(ranks_of({dumps[0], dumps[2]}).empty()) << "one rank is one tree, as before";
}

TEST(RankSpans, AnUnreadableDumpIsAWarningAndTheOthersStay) {
  TempDir dir;
  write_two_ranks(dir);
  dir.write("spans-300.json", "{\"format\": 3");
  std::vector<std::string> warnings;
  EXPECT_EQ(read_child_dumps(dir.path().string(), warnings).size(), 3u);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("spans-300.json"), std::string::npos) << warnings[0];
}

TEST(RankSpans, EachRankGetsANodeAndItsCollectivesStayWithItsOwnStep) {
  TempDir dir;
  write_two_ranks(dir);
  std::vector<std::string> warnings;
  const std::vector<ChildDump> dumps = read_child_dumps(dir.path().string(), warnings);
  const std::vector<int> ranks = ranks_of(dumps);
  const std::string combined = (dir.path() / "combined.json").string();
  ASSERT_TRUE(write_span_dump(combine_child_dumps(dumps, ranks), combined).ok());

  Profile run = ten_watt_run();
  RecordingAttributionOptions options;
  options.trace_path = combined;
  const Result<RecordingAttribution> done = attribute_recording(run, options);
  ASSERT_TRUE(done.ok()) << done.error().message();
  ASSERT_TRUE(run.tree.has_value());
  const ProfileNode* rank0 = find(*run.tree, {"[rank 0]", "step"});
  const ProfileNode* rank1 = find(*run.tree, {"[rank 1]", "step"});
  ASSERT_NE(rank0, nullptr);
  ASSERT_NE(rank1, nullptr);
  EXPECT_EQ(rank0->child("[communication]"), nullptr)
      << "rank 1's gloo thread ran during rank 0's step, but is rank 1's";
  const ProfileNode* communication = rank1->child("[communication]");
  ASSERT_NE(communication, nullptr);
  EXPECT_NE(communication->child("gloo:all_reduce"), nullptr);
  EXPECT_GT(communication->energy_j, 0.0);
  EXPECT_NEAR(run.tree->energy_j, 10.0, 1e-9);

  // Per rank: its subtree, its share of the meter; merged, the figures agree with the run's.
  const std::vector<Profile> per_rank = rank_profiles(run, dumps, ranks);
  ASSERT_EQ(per_rank.size(), 2u);
  double ranks_j = 0.0;
  for (int r = 0; r < 2; ++r) {
    const Profile& p = per_rank[static_cast<std::size_t>(r)];
    EXPECT_EQ(p.meta.rank, r);
    EXPECT_EQ(p.meta.world_size, 2);
    const double subtree_j = run.tree->child(rank_node_name(r))->energy_j;
    ASSERT_TRUE(p.tree.has_value());
    EXPECT_NEAR(p.tree->energy_j, subtree_j, 1e-9);
    EXPECT_EQ(p.tree->name, run.tree->name);
    ASSERT_TRUE(p.total_process_energy_j().has_value());
    EXPECT_NEAR(*p.total_process_energy_j(), subtree_j, 1e-9);
    EXPECT_GT(subtree_j, 0.0);
    ranks_j += subtree_j;
    for (const Span& s : p.timeline.spans()) {
      EXPECT_EQ(p.timeline.name(s.name).find("[rank"), std::string::npos)
          << "a rank's own timeline keeps its spans' names";
    }
  }
  EXPECT_LT(ranks_j, 10.0) << "the time no rank's span covers is no rank's";
  const Result<Profile> merged = merge_profiles(per_rank, {"rank-0.json", "rank-1.json"});
  ASSERT_TRUE(merged.ok()) << merged.error().message();
  EXPECT_NEAR(merged->total_energy_j(), 10.0, 1e-9) << "the meter once, not once a rank";
  EXPECT_NEAR(merged->tree->energy_j, 10.0, 1e-6);
  const auto& rank_energy = merged->meta.options.merge.rank_energy_j;
  EXPECT_NEAR(rank_energy.at("r0") + rank_energy.at("r1"), ranks_j, 1e-6);
  EXPECT_NEAR(rank_energy.at("r1"), run.tree->child("[rank 1]")->energy_j, 1e-6);
}

}  // namespace
}  // namespace jouleprof
