#include <gtest/gtest.h>

#include <random>

#include "jouleprof/attribution.hpp"
#include "jouleprof/channel_summary.hpp"

namespace jouleprof {
namespace {

Series counter(const std::string& id, const std::string& device, TimeNs period_ns, TimeNs end_ns,
               double power_w, std::string parent = "") {
  Series s(Channel{id, "test", device, "package", ChannelKind::kEnergyCounter,
                   Provenance::kMeasured, "", std::move(parent), period_ns, 0});
  for (TimeNs t = 0; t <= end_ns; t += period_ns)
    EXPECT_TRUE(s.append(t, power_w * ns_to_s(t)).ok());
  return s;
}

// Two spans on one track, a gap between them, and a third overlapping one on another track.
Timeline two_tracks() {
  Timeline tl;
  const auto a = tl.add_track(Track{TrackKind::kCpuThread, "t1", "cpu0"});
  const auto b = tl.add_track(Track{TrackKind::kCpuThread, "t2", "cpu0"});
  tl.add_span(Span{10 * kNsPerMs, 30 * kNsPerMs, a, tl.intern("work/alpha")});
  tl.add_span(Span{50 * kNsPerMs, 70 * kNsPerMs, a, tl.intern("work/beta")});
  tl.add_span(Span{20 * kNsPerMs, 30 * kNsPerMs, b, tl.intern("gamma")});
  return tl;
}

TEST(Attributor, InterpolateSplitsEquallyAndTreeSumsToMeasured) {
  std::vector<Series> series;
  series.push_back(counter("rapl:pkg", "cpu0", kNsPerMs, 100 * kNsPerMs, 50.0));
  AttributionOptions options;
  options.window_begin_ns = 0;
  options.window_end_ns = 100 * kNsPerMs;
  auto r = attribute(series, two_tracks(), options);
  ASSERT_TRUE(r.ok()) << r.error().message();
  EXPECT_EQ(r->records[0].method, AttributionMethod::kInterpolate);
  EXPECT_NE(r->records[0].reason.find("fine counter"), std::string::npos);
  // alpha: 10 ms alone (0.5 J) + 10 ms shared with gamma (0.25 J).
  const ProfileNode* work = r->tree.child("work");
  ASSERT_NE(work, nullptr);
  EXPECT_NEAR(work->child("alpha")->energy_j, 0.75, 1e-9);
  EXPECT_NEAR(work->child("beta")->energy_j, 1.0, 1e-9);
  EXPECT_NEAR(r->tree.child("gamma")->energy_j, 0.25, 1e-9);
  EXPECT_NEAR(work->energy_j, 1.75, 1e-9);
  EXPECT_NEAR(r->tree.child(std::string(kUnattributedNode))->energy_j, 5.0 - 2.0, 1e-9);
  EXPECT_NEAR(r->tree.energy_j, 5.0, 1e-9);
}

// Ops of 50–400 µs of two classes (500 W and 100 W, idle 50 W between them) under a counter that
// updates every 1 ms: several ops share each update interval.
struct ShortOps {
  Timeline timeline;
  Series counter{Channel{"rapl:pkg", "test", "cpu0", "package", ChannelKind::kEnergyCounter,
                         Provenance::kMeasured, "", "", kNsPerMs, 0}};
  double true_hot_j = 0.0;
  double true_cool_j = 0.0;
};

ShortOps short_ops() {
  ShortOps s;
  const auto track = s.timeline.add_track(Track{TrackKind::kCpuThread, "t", "cpu0"});
  const std::uint32_t hot = s.timeline.intern("hot");
  const std::uint32_t cool = s.timeline.intern("cool");
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<TimeNs> duration(50'000, 400'000);
  struct Piece {
    TimeNs end_ns;
    double power_w;
  };
  std::vector<Piece> power;  // piecewise-constant truth, consecutive from t = 0
  TimeNs t = 0;
  while (t < 2 * kNsPerS) {
    const bool is_hot = rng() % 2 == 0;
    const TimeNs d = duration(rng);
    s.timeline.add_span(Span{t, t + d, track, is_hot ? hot : cool});
    power.push_back(Piece{t + d, is_hot ? 500.0 : 100.0});
    (is_hot ? s.true_hot_j : s.true_cool_j) += (is_hot ? 500.0 : 100.0) * ns_to_s(d);
    t += d;
    power.push_back(Piece{t + 20'000, 50.0});
    t += 20'000;
  }
  double energy_j = 0.0;
  TimeNs at = 0;
  std::size_t k = 0;
  for (TimeNs u = 0; u <= t; u += kNsPerMs) {
    for (; k < power.size() && power[k].end_ns <= u; ++k) {
      energy_j += power[k].power_w * ns_to_s(power[k].end_ns - at);
      at = power[k].end_ns;
    }
    const double partial_j = k < power.size() ? power[k].power_w * ns_to_s(u - at) : 0.0;
    EXPECT_TRUE(s.counter.append(u, energy_j + partial_j).ok());
  }
  return s;
}

TEST(Attributor, InterpolateRefinesOpsShorterThanTheUpdatePeriod) {
  ShortOps ops = short_ops();
  std::vector<Series> series;
  series.push_back(std::move(ops.counter));
  AttributionOptions options;
  options.default_method = AttributionMethod::kInterpolate;
  auto refined = attribute(series, ops.timeline, options);
  ASSERT_TRUE(refined.ok()) << refined.error().message();
  const AttributionRecord& rec = refined->records[0];
  ASSERT_TRUE(rec.diagnostics.refinement.has_value()) << rec.reason;
  EXPECT_EQ(rec.diagnostics.refinement->refined_classes, 2u) << rec.reason;
  EXPECT_NE(rec.reason.find("refined below the update period"), std::string::npos) << rec.reason;
  EXPECT_NEAR(refined->tree.child("hot")->energy_j, ops.true_hot_j, 0.01 * ops.true_hot_j);
  EXPECT_NEAR(refined->tree.child("cool")->energy_j, ops.true_cool_j, 0.01 * ops.true_cool_j);
  EXPECT_NEAR(refined->tree.energy_j, refined->per_channel[0].measured_energy_j, 1e-9);
  EXPECT_EQ(refined->tree.child("hot")->provenance, Provenance::kEstimated);

  options.refine_interpolation = false;
  auto plain = attribute(series, ops.timeline, options);
  ASSERT_TRUE(plain.ok());
  ASSERT_TRUE(plain->records[0].diagnostics.refinement.has_value());
  EXPECT_EQ(plain->records[0].diagnostics.refinement->refined_classes, 0u);
  // Plain interpolation pulls the two classes towards the mean power of their intervals.
  EXPECT_GT(std::abs(plain->tree.child("cool")->energy_j - ops.true_cool_j),
            0.05 * ops.true_cool_j);
  EXPECT_NEAR(plain->tree.energy_j, refined->tree.energy_j, 1e-9);
}

// The CPU estimate measures the whole CPU (device "cpu"); the recorder's thread tracks name the
// package their thread ran on ("cpu0"). The tracks draw on the whole-CPU channel without renaming.
TEST(Attributor, PackageTracksConsumeAWholeCpuChannel) {
  std::vector<Series> series;
  series.push_back(counter("cpu-estimate:package", "cpu", kNsPerMs, 100 * kNsPerMs, 50.0));
  AttributionOptions options;
  options.window_begin_ns = 0;
  options.window_end_ns = 100 * kNsPerMs;
  auto r = attribute(series, two_tracks(), options);
  ASSERT_TRUE(r.ok()) << r.error().message();
  ASSERT_NE(r->tree.child("work"), nullptr);
  EXPECT_NEAR(r->tree.child("work")->energy_j, 1.75, 1e-9);
  EXPECT_NEAR(r->tree.child("gamma")->energy_j, 0.25, 1e-9);
}

TEST(Attributor, ActivityWeightsShareConcurrentIntervals) {
  std::vector<Series> series;
  series.push_back(counter("rapl:pkg", "cpu0", kNsPerMs, 100 * kNsPerMs, 50.0));
  AttributionOptions options;
  options.activity_weight_by_track["t2"] = 3.0;
  auto r = attribute(series, two_tracks(), options);
  ASSERT_TRUE(r.ok());
  // The shared 10 ms (0.5 J) goes 1:3 to alpha and gamma.
  EXPECT_NEAR(r->tree.child("gamma")->energy_j, 0.375, 1e-9);
  EXPECT_NEAR(r->tree.child("work")->child("alpha")->energy_j, 0.5 + 0.125, 1e-9);
}

TEST(Attributor, NestedChannelsAreNeverAddedToTotals) {
  std::vector<Series> series;
  series.push_back(counter("rapl:pkg", "cpu0", kNsPerMs, 100 * kNsPerMs, 50.0));
  series.push_back(counter("rapl:core", "cpu0", kNsPerMs, 100 * kNsPerMs, 30.0, "rapl:pkg"));
  AttributionOptions options;
  options.window_begin_ns = 0;
  options.window_end_ns = 100 * kNsPerMs;
  auto r = attribute(series, two_tracks(), options);
  ASSERT_TRUE(r.ok());
  EXPECT_NEAR(r->tree.energy_j, 5.0, 1e-9);
  EXPECT_NEAR(r->tree.energy_by_channel_j.at("rapl:core"), 3.0, 1e-9);
  EXPECT_NEAR(r->tree.child("gamma")->energy_by_channel_j.at("rapl:core"), 0.15, 1e-9);
}

TEST(Attributor, ChildrenCarveTheirTimeOutOfTheParent) {
  Timeline tl;
  const auto t = tl.add_track(Track{TrackKind::kCpuThread, "t", "cpu0"});
  const auto parent = tl.add_span(Span{0, 40 * kNsPerMs, t, tl.intern("step")});
  tl.add_span(Span{10 * kNsPerMs, 20 * kNsPerMs, t, tl.intern("op"), parent, kNoIndex,
                   SpanCategory::kOp, Pass::kForward});
  std::vector<Series> series;
  series.push_back(counter("c", "cpu0", kNsPerMs, 40 * kNsPerMs, 100.0));
  AttributionOptions options;
  options.idle_power_w["c"] = 40.0;
  auto r = attribute(series, tl, options);
  ASSERT_TRUE(r.ok());
  const ProfileNode* step = r->tree.child("step");
  ASSERT_NE(step, nullptr);
  EXPECT_NEAR(step->energy_j, 4.0, 1e-9);
  EXPECT_NEAR(step->self_energy_j, 3.0, 1e-9);
  EXPECT_EQ(step->self_time_ns, 30 * kNsPerMs);
  const ProfileNode* fwd = step->child("[forward]");
  ASSERT_NE(fwd, nullptr);
  const ProfileNode* op = fwd->child("op");
  ASSERT_NE(op, nullptr);
  EXPECT_NEAR(op->energy_j, 1.0, 1e-9);
  ASSERT_TRUE(op->static_energy_j.has_value());
  EXPECT_NEAR(*op->static_energy_j, 0.4, 1e-9);
  EXPECT_NEAR(*op->dynamic_energy_j, 0.6, 1e-9);
  EXPECT_NEAR(op->mean_power_w(), 100.0, 1e-6);
}

// A collective goes in a [communication] node under its step, never under the module whose
// gradient hook started it; its time is counted once, and its own time stays carved out of the
// hook's.
TEST(Attributor, CollectivesGoUnderTheirStepInACommunicationNode) {
  Timeline tl;
  const auto main = tl.add_track(Track{TrackKind::kCpuThread, "thread 1", "cpu0"});
  const auto gloo = tl.add_track(Track{TrackKind::kCpuThread, "thread 2", "cpu0"});
  const auto step = tl.add_span(
      Span{0, 100 * kNsPerMs, main, tl.intern("step"), kNoIndex, kNoIndex, SpanCategory::kStep});
  const auto hook =
      tl.add_span(Span{40 * kNsPerMs, 60 * kNsPerMs, main, tl.intern("module.fc/AccumulateGrad"),
                       step, kNoIndex, SpanCategory::kOp, Pass::kBackward});
  tl.add_span(Span{45 * kNsPerMs, 50 * kNsPerMs, main, tl.intern("c10d::allreduce_"), hook,
                   kNoIndex, SpanCategory::kOp, Pass::kCommunication});
  tl.add_span(Span{50 * kNsPerMs, 80 * kNsPerMs, gloo, tl.intern("gloo:all_reduce"), step, kNoIndex,
                   SpanCategory::kRegion, Pass::kCommunication});
  std::vector<Series> series;
  series.push_back(counter("c", "cpu0", kNsPerMs, 100 * kNsPerMs, 50.0));
  auto r = attribute(series, tl, AttributionOptions{});
  ASSERT_TRUE(r.ok()) << r.error().message();
  const ProfileNode* step_node = r->tree.child("step");
  ASSERT_NE(step_node, nullptr);
  EXPECT_EQ(step_node->time_ns, 100 * kNsPerMs);
  const ProfileNode* communication = step_node->child("[communication]");
  ASSERT_NE(communication, nullptr);
  EXPECT_EQ(communication->pass, Pass::kCommunication);
  ASSERT_NE(communication->child("c10d::allreduce_"), nullptr);
  ASSERT_NE(communication->child("gloo:all_reduce"), nullptr);
  EXPECT_EQ(communication->time_ns, 35 * kNsPerMs);
  const ProfileNode* hook_node = step_node->child("[backward]")->child("module.fc");
  ASSERT_NE(hook_node, nullptr);
  const ProfileNode* accumulate = hook_node->child("AccumulateGrad");
  ASSERT_NE(accumulate, nullptr);
  EXPECT_TRUE(accumulate->children.empty());
  EXPECT_EQ(accumulate->self_time_ns, 15 * kNsPerMs);
  EXPECT_NEAR(r->tree.energy_j, 5.0, 1e-9);
}

TEST(Attributor, HoldUsesThePreviousReadingOnHalfOpenIntervals) {
  // Power 10 W for 10 ms, then 30 W: a counter updated every 10 ms.
  Series s(Channel{"c", "test", "cpu0", "package", ChannelKind::kEnergyCounter,
                   Provenance::kMeasured, "", "", 0, 0});
  ASSERT_TRUE(s.append(0, 0.0).ok());
  ASSERT_TRUE(s.append(10 * kNsPerMs, 0.1).ok());
  ASSERT_TRUE(s.append(20 * kNsPerMs, 0.4).ok());
  ASSERT_TRUE(s.append(30 * kNsPerMs, 0.7).ok());
  Timeline tl;
  const auto t = tl.add_track(Track{TrackKind::kCpuThread, "t", "cpu0"});
  tl.add_span(Span{10 * kNsPerMs, 20 * kNsPerMs, t, tl.intern("op")});
  tl.add_span(Span{20 * kNsPerMs, 30 * kNsPerMs, t, tl.intern("next")});
  std::vector<Series> series;
  series.push_back(std::move(s));
  AttributionOptions options;
  options.default_method = AttributionMethod::kHold;
  auto r = attribute(series, tl, options);
  ASSERT_TRUE(r.ok());
  // Held: [10,20) sees the 10 W read at 10 ms; [20,30) the 30 W read at 20 ms. An op ending at
  // 20 ms gets nothing of the following interval (the published off-by-one).
  EXPECT_NEAR(r->tree.child("op")->energy_j, 0.1, 1e-9);
  EXPECT_NEAR(r->tree.child("next")->energy_j, 0.3, 1e-9);
  options.default_method = AttributionMethod::kInterpolate;
  auto i = attribute(series, tl, options);
  ASSERT_TRUE(i.ok());
  EXPECT_NEAR(i->tree.child("op")->energy_j, 0.3, 1e-9);
}

TEST(Attributor, CoarseCounterWithoutCalibrationTriesRegressAndSaysWhy) {
  Timeline tl;
  const auto t = tl.add_track(Track{TrackKind::kGpuStream, "s", "gpu0"});
  for (int i = 0; i < 200; ++i) {
    tl.add_span(Span{i * kNsPerMs, i * kNsPerMs + 500'000, t, tl.intern(i % 2 ? "a" : "b")});
  }
  std::vector<Series> series;
  series.push_back(counter("nvml", "gpu0", 100 * kNsPerMs, 300 * kNsPerMs, 300.0));
  auto r = attribute(series, tl, AttributionOptions{});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->records[0].method, AttributionMethod::kInterpolate);
  EXPECT_NE(r->records[0].reason.find("regress declined"), std::string::npos)
      << r->records[0].reason;
  EXPECT_NEAR(r->tree.energy_j, r->per_channel[0].measured_energy_j, 1e-9);
}

TEST(Attributor, RejectsInputsWithoutEnergy) {
  std::vector<Series> series;
  series.push_back(Series(Channel{"temp", "t", "cpu0", "", ChannelKind::kTemperature,
                                  Provenance::kMeasured, "", "", 0, 0}));
  auto r = attribute(series, two_tracks(), AttributionOptions{});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message().find("energy"), std::string::npos);
  AttributionOptions bad;
  bad.activity_weight_by_track["t1"] = -1.0;
  std::vector<Series> ok;
  ok.push_back(counter("c", "cpu0", kNsPerMs, 100 * kNsPerMs, 1.0));
  EXPECT_FALSE(attribute(ok, two_tracks(), bad).ok());
  AttributionOptions calibrated;
  calibrated.default_method = AttributionMethod::kCalibrated;
  auto c = attribute(ok, two_tracks(), calibrated);
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.error().message().find("calibration"), std::string::npos);
}

TEST(Attributor, WritesIntoAProfile) {
  Profile p;
  p.series.push_back(counter("rapl:pkg", "cpu0", kNsPerMs, 100 * kNsPerMs, 50.0));
  p.timeline = two_tracks();
  ASSERT_TRUE(attribute_profile(p, AttributionOptions{}).ok());
  ASSERT_TRUE(p.tree.has_value());
  ASSERT_EQ(p.attribution.size(), 1u);
  ASSERT_EQ(p.channels.size(), 1u);
  EXPECT_NEAR(p.channels[0].mean_power_w, 50.0, 1e-6);
  const Result<Profile> back = profile_from_json_string(profile_to_json_string(p), "mem");
  ASSERT_TRUE(back.ok()) << back.error().message();
  EXPECT_NEAR(back->tree->energy_j, p.tree->energy_j, 1e-9);
}

// Attribution adds to a profile: what the monitor measured (energy, peak, idle baseline, net)
// stays as it was, and the measured idle power feeds the tree's static/dynamic split.
TEST(Attributor, KeepsWhatTheMonitorMeasured) {
  Profile p;
  p.series.push_back(counter("rapl:pkg", "cpu0", kNsPerMs, 100 * kNsPerMs, 50.0));
  p.timeline = two_tracks();
  ChannelSummary measured =
      summarize_channel(p.series[0], 0, 100 * kNsPerMs, std::nullopt, 20 * kNsPerMs);
  apply_idle_power(measured, 20.0);
  measured.peak_power_w = 61.0;  // not what attribution would compute: it must stay
  p.channels.push_back(measured);
  AttributionOptions options;
  options.window_begin_ns = 0;
  options.window_end_ns = 100 * kNsPerMs;
  ASSERT_TRUE(attribute_profile(p, options).ok());
  ASSERT_EQ(p.channels.size(), 1U);
  EXPECT_EQ(p.channels[0].peak_power_w, 61.0);
  ASSERT_TRUE(p.channels[0].idle_power_w.has_value());
  EXPECT_EQ(*p.channels[0].idle_power_w, 20.0);
  ASSERT_TRUE(p.channels[0].net_energy_j.has_value());
  EXPECT_NEAR(*p.channels[0].net_energy_j, 5.0 - 20.0 * 0.1, 1e-9);
  ASSERT_TRUE(p.tree.has_value());
  ASSERT_TRUE(p.tree->static_energy_j.has_value());
  EXPECT_NEAR(*p.tree->static_energy_j, 20.0 * 0.1, 1e-9);
  EXPECT_NEAR(p.tree->energy_j, p.total_energy_j(), 1e-12);
}

// A counter read faster than it updates: the tree and the profile's total read the counter by one
// rule (between its updates, stale repeats skipped), so they agree at any window.
TEST(Attributor, TreeAndTotalAgreeOnACounterReadFasterThanItUpdates) {
  Profile p;
  Series s(Channel{"nvml:0", "test", "cpu0", "gpu", ChannelKind::kEnergyCounter,
                   Provenance::kMeasured, "", "", 10 * kNsPerMs, 0});
  for (TimeNs t = 3 * kNsPerMs; t <= 97 * kNsPerMs; t += kNsPerMs)
    ASSERT_TRUE(s.append(t, 80.0 * ns_to_s(t / (10 * kNsPerMs) * (10 * kNsPerMs))).ok());
  p.series.push_back(std::move(s));
  p.timeline = two_tracks();
  p.meta.begin_ns = 5 * kNsPerMs;
  p.meta.end_ns = 96 * kNsPerMs;
  p.channels.push_back(
      summarize_channel(p.series[0], p.meta.begin_ns, p.meta.end_ns, std::nullopt));
  AttributionOptions options;
  options.window_begin_ns = p.meta.begin_ns;
  options.window_end_ns = p.meta.end_ns;
  ASSERT_TRUE(attribute_profile(p, options).ok());
  ASSERT_TRUE(p.tree.has_value());
  // To the update at 90 ms, from 5 ms on the line between the first reading (3 ms, 0 J) and the
  // update at 10 ms (0.8 J).
  EXPECT_NEAR(p.tree->energy_j, 80.0 * 0.090 - 0.8 * 2.0 / 7.0, 1e-9);
  EXPECT_NEAR(p.tree->energy_j, p.total_energy_j(), 1e-12);
}

TEST(Attributor, GapsInsideTheWindowAreAWarning) {
  std::vector<Series> series;
  series.push_back(counter("rapl:pkg", "cpu0", kNsPerMs, 100 * kNsPerMs, 50.0));
  series[0].add_gap(Gap{40 * kNsPerMs, 45 * kNsPerMs, "counter went backwards (1 J after 2 J)"});
  series[0].add_gap(Gap{200 * kNsPerMs, 210 * kNsPerMs, "after the window"});
  AttributionOptions options;
  options.window_begin_ns = 0;
  options.window_end_ns = 100 * kNsPerMs;
  auto r = attribute(series, two_tracks(), options);
  ASSERT_TRUE(r.ok()) << r.error().message();
  ASSERT_EQ(r->warnings.size(), 1u);
  EXPECT_EQ(r->warnings[0],
            "channel rapl:pkg: 1 gap in its readings inside the window (0.005 s; first at "
            "40000000 ns: counter went backwards (1 J after 2 J)); energy lost in a gap is not "
            "attributed");
}

TEST(Attributor, ParentCyclesAndOverDeepTreesAreRefused) {
  std::vector<Series> series;
  series.push_back(counter("rapl:pkg", "cpu0", kNsPerMs, 100 * kNsPerMs, 50.0));
  Timeline cycle = two_tracks();
  cycle.spans()[0].parent = 1;
  cycle.spans()[1].parent = 0;
  auto r = attribute(series, cycle, AttributionOptions{});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message().find("is its own ancestor"), std::string::npos)
      << r.error().message();
  // A name of a million '/' levels would be a tree deeper than jouleprof builds.
  Timeline deep;
  const auto track = deep.add_track(Track{TrackKind::kCpuThread, "t", "cpu0"});
  std::string name = "a";
  for (std::size_t i = 0; i < kMaxProfileTreeDepth; ++i) name += "/b";
  deep.add_span(Span{10 * kNsPerMs, 20 * kNsPerMs, track, deep.intern(name)});
  r = attribute(series, deep, AttributionOptions{});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message().find("beyond the 1000000 levels"), std::string::npos)
      << r.error().message().substr(0, 300);
}

TEST(Attributor, DeepSpanChainsAreAttributedWithoutRecursion) {
  std::vector<Series> series;
  series.push_back(counter("rapl:pkg", "cpu0", kNsPerMs, 100 * kNsPerMs, 50.0));
  Timeline chain;
  const auto track = chain.add_track(Track{TrackKind::kCpuThread, "t", "cpu0"});
  const auto name = chain.intern("s");
  for (std::uint32_t i = 0; i < 20'000; ++i) {
    Span s{10 * kNsPerMs, 90 * kNsPerMs, track, name};
    s.parent = i == 0 ? kNoIndex : i - 1;
    chain.add_span(s);
  }
  AttributionOptions options;
  options.window_begin_ns = 0;
  options.window_end_ns = 100 * kNsPerMs;
  auto r = attribute(series, chain, options);
  ASSERT_TRUE(r.ok()) << r.error().message();
  EXPECT_NEAR(r->tree.energy_j, 5.0, 1e-9);
}

}  // namespace
}  // namespace jouleprof
