#include "attribution/thread_activity.hpp"

#include <gtest/gtest.h>

#include "fake_proc.hpp"
#include "jouleprof/attribution.hpp"
#include "sources/backends.hpp"

namespace jouleprof {
namespace {

using attribution::kMinThreadWeight;
using attribution::Segment;
using attribution::split_by_weight_steps;
using attribution::thread_weight_steps;
using attribution::WeightStep;
using testing::FakeProc;

Series thread_series(long tid, const std::vector<std::pair<TimeNs, double>>& samples) {
  Channel c;
  c.id = "processes:thread:" + std::to_string(tid);
  c.device = "cpu";
  c.domain = "thread";
  c.kind = ChannelKind::kBusyTime;
  Series s(c);
  for (const auto& [t, v] : samples) EXPECT_TRUE(s.append(t, v).ok());
  return s;
}

Timeline two_threads() {
  Timeline tl;
  const std::uint32_t a = tl.add_track({TrackKind::kCpuThread, "thread 11", "cpu0"});
  const std::uint32_t b = tl.add_track({TrackKind::kCpuThread, "thread 12", "cpu0"});
  tl.add_span({0, 2 * kNsPerS, a, tl.intern("work_a")});
  tl.add_span({0, 2 * kNsPerS, b, tl.intern("work_b")});
  return tl;
}

TEST(ThreadActivity, StepsFollowEachThreadsUtilisation) {
  const Timeline tl = two_threads();
  const Series a = thread_series(11, {{0, 0.0}, {kNsPerS, 0.9}, {2 * kNsPerS, 1.0}});
  const Series other = thread_series(99, {{0, 0.0}, {kNsPerS, 1.0}});
  std::size_t matched = 0;
  const auto steps = thread_weight_steps(tl, {&a, &other}, &matched);
  EXPECT_EQ(matched, 1U);
  ASSERT_EQ(steps.size(), 2U);
  ASSERT_EQ(steps[0].size(), 3U);
  EXPECT_DOUBLE_EQ(steps[0][0].weight, 0.9);
  EXPECT_DOUBLE_EQ(steps[0][1].weight, 0.1);
  EXPECT_DOUBLE_EQ(steps[0][2].weight, 1.0);  // after the last reading: unknown, weighs 1
  EXPECT_TRUE(steps[1].empty()) << "thread 12 has no CPU-time series";
}

TEST(ThreadActivity, AWaitingThreadStillWeighsALittle) {
  const Timeline tl = two_threads();
  const Series a = thread_series(11, {{0, 0.0}, {kNsPerS, 0.0}});
  const auto steps = thread_weight_steps(tl, {&a}, nullptr);
  EXPECT_DOUBLE_EQ(steps[0][0].weight, kMinThreadWeight);
}

TEST(ThreadActivity, SegmentsAreCutWhereTheWeightSteps) {
  const Timeline tl = two_threads();
  std::vector<std::vector<WeightStep>> steps(2);
  steps[0] = {{kNsPerS / 2, 0.5}, {kNsPerS, 0.25}};
  const std::vector<Segment> in{{0, 2 * kNsPerS, 0, 0, 2.0}, {0, 2 * kNsPerS, 1, 1, 1.0}};
  const std::vector<Segment> out = split_by_weight_steps(in, tl, steps);
  ASSERT_EQ(out.size(), 4U);
  EXPECT_EQ(out[0].end_ns, kNsPerS / 2);
  EXPECT_DOUBLE_EQ(out[0].weight, 2.0);  // before the first step: 1 × the declared weight
  EXPECT_EQ(out[1].begin_ns, kNsPerS / 2);
  EXPECT_DOUBLE_EQ(out[1].weight, 1.0);
  EXPECT_DOUBLE_EQ(out[2].weight, 0.5);
  EXPECT_EQ(out[2].end_ns, 2 * kNsPerS);
  EXPECT_EQ(out[3].span, 1U);
  EXPECT_DOUBLE_EQ(out[3].weight, 1.0);
}

// Through the process source on a fake /proc and the attributor: in each interval, two spans
// running side by side on two threads share the package's energy by the threads' CPU time.
TEST(ThreadActivity, ThreadsWeighTheirSpansByCpuTimeFromAFakeProc) {
  FakeProc proc;
  proc.set_process({.pid = 11, .ppid = 1, .utime = 0});
  proc.set_thread(11, {.pid = 12, .ppid = 1, .utime = 0});
  SourceOptions options;
  options.sysfs_root = proc.root_string();
  options.observed = ObservedProcesses::process_tree(11);
  options.settings["processes.threads"] = "1";
  std::unique_ptr<Source> source = make_process_activity_source(options);
  ASSERT_TRUE(source->availability().available);
  std::vector<Reading> r;
  std::vector<std::pair<TimeNs, std::map<std::string, double>>> reads;
  const auto read = [&] {
    r.assign(source->channels().size(), Reading{});
    source->read(r);
    std::map<std::string, double> v;
    for (std::size_t i = 0; i < r.size(); ++i) v[source->channels()[i].id] = r[i].value;
    reads.emplace_back(r[0].t_ns, v);
  };
  read();  // discovers the threads
  read();
  // Interval 1: thread 11 busy 8 ticks, thread 12 2 ticks; interval 2: the other way round.
  proc.set_process({.pid = 11, .ppid = 1, .utime = 10});
  proc.set_thread(11, {.pid = 11, .ppid = 1, .utime = 8});
  proc.set_thread(11, {.pid = 12, .ppid = 1, .utime = 2});
  read();
  proc.set_process({.pid = 11, .ppid = 1, .utime = 20});
  proc.set_thread(11, {.pid = 11, .ppid = 1, .utime = 9});
  proc.set_thread(11, {.pid = 12, .ppid = 1, .utime = 11});
  read();

  // Series on made-up times one second apart (the weights are rates, so the times matter only
  // through their spacing).
  std::vector<Series> series;
  series.push_back(thread_series(11, {}));
  series.push_back(thread_series(12, {}));
  Channel package;
  package.id = "rapl:package-0";
  package.device = "cpu0";
  package.kind = ChannelKind::kEnergyCounter;
  series.emplace_back(package);
  for (std::size_t k = 1; k < reads.size(); ++k) {
    const TimeNs t = static_cast<TimeNs>(k - 1) * kNsPerS;
    ASSERT_TRUE(series[0].append(t, reads[k].second["processes:thread:11"]).ok());
    ASSERT_TRUE(series[1].append(t, reads[k].second["processes:thread:12"]).ok());
    ASSERT_TRUE(series[2].append(t, 100.0 * static_cast<double>(k - 1)).ok());
  }
  const Timeline tl = [] {
    Timeline t;
    const std::uint32_t a = t.add_track({TrackKind::kCpuThread, "thread 11", "cpu0"});
    const std::uint32_t b = t.add_track({TrackKind::kCpuThread, "thread 12", "cpu0"});
    t.add_span({0, kNsPerS, a, t.intern("a1")});
    t.add_span({0, kNsPerS, b, t.intern("b1")});
    t.add_span({kNsPerS, 2 * kNsPerS, a, t.intern("a2")});
    t.add_span({kNsPerS, 2 * kNsPerS, b, t.intern("b2")});
    return t;
  }();
  AttributionOptions weighed;
  weighed.default_method = AttributionMethod::kInterpolate;
  weighed.refine_interpolation = false;
  Result<AttributionResult> result = attribute(series, tl, weighed);
  ASSERT_TRUE(result.ok()) << result.error().message();
  const ChannelAttribution& rapl = result->per_channel.at(0);
  EXPECT_NEAR(rapl.span_energy_j[0], 80.0, 1e-6);  // a1: 8 of 10 ticks
  EXPECT_NEAR(rapl.span_energy_j[1], 20.0, 1e-6);
  EXPECT_NEAR(rapl.span_energy_j[2], 10.0, 1e-6);  // a2: 1 of 10
  EXPECT_NEAR(rapl.span_energy_j[3], 90.0, 1e-6);
  EXPECT_EQ(result->records.at(0).diagnostics.threads_weighed_by_cpu_time, 2u);

  AttributionOptions equal = weighed;
  equal.weigh_threads_by_cpu_time = false;
  result = attribute(series, tl, equal);
  ASSERT_TRUE(result.ok());
  EXPECT_NEAR(result->per_channel.at(0).span_energy_j[0], 50.0, 1e-6);
}

}  // namespace
}  // namespace jouleprof
