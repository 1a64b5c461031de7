#include <gtest/gtest.h>

#include "jouleprof/attribution.hpp"

namespace jouleprof {
namespace {

ProfileNode leaf(const std::string& name, double e) {
  ProfileNode n;
  n.name = name;
  n.energy_j = n.self_energy_j = e;
  n.calls = 1;
  return n;
}

TEST(TreeViews, CollapsesNumericIndicesAndMergesSiblings) {
  EXPECT_EQ(collapse_index_name("layer_3"), "layer_*");
  EXPECT_EQ(collapse_index_name("h.11.attn"), "h.*.attn");
  EXPECT_EQ(collapse_index_name("conv2d"), "conv2d");
  ProfileNode root = leaf("run", 0.0);
  root.children = {leaf("layer_0", 1.0), leaf("layer_1", 2.0), leaf("head", 0.5)};
  root.children[0].children = {leaf("matmul", 1.0)};
  root.children[1].children = {leaf("matmul", 2.0)};
  const ProfileNode c = collapse_indices(root);
  ASSERT_EQ(c.children.size(), 2u);
  EXPECT_EQ(c.children[0].name, "layer_*");
  EXPECT_DOUBLE_EQ(c.children[0].energy_j, 3.0);
  EXPECT_EQ(c.children[0].calls, 2u);
  EXPECT_DOUBLE_EQ(c.children[0].child("matmul")->energy_j, 3.0);
}

TEST(TreeViews, AMergedNodesIntervalHoldsItsSummedFigure) {
  ProfileNode root = leaf("run", 3.0);
  root.children = {leaf("layer_0", 1.0), leaf("layer_1", 2.0)};
  root.children[0].band = EnergyBand{0.9, 1.1, UncertaintyTerm::kGain};
  root.children[1].band = EnergyBand{1.5, 2.5, UncertaintyTerm::kSplit};
  const ProfileNode c = collapse_indices(root);
  ASSERT_EQ(c.children.size(), 1u);
  ASSERT_TRUE(c.children[0].band.has_value());
  EXPECT_DOUBLE_EQ(c.children[0].band->low_j, 2.4);
  EXPECT_DOUBLE_EQ(c.children[0].band->high_j, 3.6);
  EXPECT_EQ(c.children[0].band->dominant, UncertaintyTerm::kSplit);
  // One part without an interval leaves the merged figure without one, not with a wrong one.
  root.children[1].band.reset();
  EXPECT_FALSE(collapse_indices(root).children[0].band.has_value());
}

TEST(TreeViews, TopOperatorsSumSelfEnergyByCollapsedName) {
  ProfileNode root = leaf("run", 0.0);
  root.children = {leaf("layer_0", 0.0), leaf("layer_1", 0.0), leaf("[unattributed]", 5.0)};
  root.children[0].children = {leaf("matmul", 1.0), leaf("add", 0.5)};
  root.children[1].children = {leaf("matmul", 2.0)};
  const auto top = top_operators(root, 1);
  ASSERT_EQ(top.size(), 1u);
  EXPECT_EQ(top[0].name, "matmul");
  EXPECT_DOUBLE_EQ(top[0].energy_j, 3.0);
  EXPECT_EQ(top[0].calls, 2u);
}

TEST(TreeViews, RepetitionsGiveStatsAndAgreement) {
  Timeline tl;
  const auto t = tl.add_track(Track{TrackKind::kGpuStream, "s", "gpu0"});
  Series s(Channel{"c", "test", "gpu0", "gpu", ChannelKind::kEnergyCounter, Provenance::kMeasured,
                   "", "", 0, 0});
  double e = 0.0;
  for (int step = 0; step < 4; ++step) {
    const TimeNs b = step * 10 * kNsPerMs;
    const auto sp =
        tl.add_span(Span{b, b + 8 * kNsPerMs, t, tl.intern("step_" + std::to_string(step)),
                         kNoIndex, kNoIndex, SpanCategory::kStep});
    tl.add_span(Span{b, b + 4 * kNsPerMs, t, tl.intern("a"), sp, kNoIndex, SpanCategory::kKernel});
    tl.add_span(Span{b + 4 * kNsPerMs, b + 8 * kNsPerMs, t, tl.intern("b"), sp, kNoIndex,
                     SpanCategory::kKernel});
  }
  // Power: 100 W during "a", 200 + 10·step W during "b", 10 W otherwise; 1 ms counter.
  for (TimeNs ms = 0; ms <= 40; ++ms) {
    ASSERT_TRUE(s.append(ms * kNsPerMs, e).ok());
    const TimeNs in_step = ms % 10;
    const double p = in_step < 4   ? 100.0
                     : in_step < 8 ? 200.0 + 10.0 * static_cast<double>(ms / 10)
                                   : 10.0;
    e += p * 1e-3;
  }
  std::vector<Series> series;
  series.push_back(std::move(s));
  auto r = attribute(series, tl, AttributionOptions{});
  ASSERT_TRUE(r.ok());
  const std::vector<ProfileNode> reps = trees_per_repetition(*r, tl);
  ASSERT_EQ(reps.size(), 4u);
  EXPECT_EQ(reps[0].name, "step_*");
  EXPECT_NEAR(reps[2].child("b")->energy_j, 0.88, 1e-9);
  const ProfileNode mean = combine_repetitions(reps);
  const ProfileNode* b = mean.child("b");
  ASSERT_NE(b, nullptr);
  ASSERT_TRUE(b->energy_stats.has_value());
  EXPECT_EQ(b->energy_stats->n, 4u);
  EXPECT_NEAR(b->energy_stats->mean, 0.86, 1e-9);
  EXPECT_LT(b->energy_stats->ci95_low, 0.86);
  EXPECT_GT(b->energy_stats->ci95_high, 0.86);
  EXPECT_NEAR(mean.child("a")->energy_stats->stdev, 0.0, 1e-9);
  // The mean's interval holds it and is at least as wide as the steps' Student-t interval, which
  // it contains together with the steps' own mean interval.
  ASSERT_TRUE(b->band.has_value());
  EXPECT_TRUE(b->band->contains(b->energy_j));
  EXPECT_GE(b->band->half_width_j(),
            0.5 * (b->energy_stats->ci95_high - b->energy_stats->ci95_low) - 1e-12);
  double own_half_width = 0.0;
  for (const ProfileNode& rep : reps) own_half_width += rep.child("b")->band->half_width_j() / 4.0;
  EXPECT_GE(b->band->half_width_j(), own_half_width - 1e-12);
  ASSERT_TRUE(mean.band.has_value());
  EXPECT_TRUE(mean.band->contains(mean.energy_j));
  const auto agreement = run_agreement(reps[0], reps[3]);
  ASSERT_TRUE(agreement.has_value());
  EXPECT_NEAR(*agreement, 1.0, 1e-9);
}

}  // namespace
}  // namespace jouleprof
