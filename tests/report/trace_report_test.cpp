#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "jouleprof/report.hpp"
#include "report/sample_profile.hpp"

namespace jouleprof {
namespace {

using nlohmann::json;

json render_trace(const Profile& p, const ReportOptions& options = {}) {
  auto text = render_report("trace", p, options);
  EXPECT_TRUE(text.ok());
  return json::parse(*text);  // throws (fails the test) on malformed JSON
}

std::vector<json> events_with(const json& doc, const std::string& ph) {
  std::vector<json> out;
  for (const json& e : doc.at("traceEvents")) {
    if (e.at("ph") == ph) out.push_back(e);
  }
  return out;
}

TEST(TraceReport, EverySpanIsACompleteEventOnANamedThread) {
  const Profile p = testing::sample_profile();
  const json doc = render_trace(p);
  std::set<std::pair<int, int>> named_threads;
  std::set<int> named_processes;
  for (const json& m : events_with(doc, "M")) {
    if (m.at("name") == "thread_name")
      named_threads.insert({m.at("pid").get<int>(), m.at("tid").get<int>()});
    if (m.at("name") == "process_name") named_processes.insert(m.at("pid").get<int>());
  }
  const auto spans = events_with(doc, "X");
  std::size_t span_events = 0;
  std::map<std::string, int> tid_of_span;
  for (const json& e : spans) {
    if (e.at("cat") == "gap") continue;
    ++span_events;
    EXPECT_TRUE(named_threads.contains({e.at("pid").get<int>(), e.at("tid").get<int>()}))
        << e.dump();
    EXPECT_TRUE(named_processes.contains(e.at("pid").get<int>()));
    EXPECT_GE(e.at("ts").get<double>(), 0.0);
    EXPECT_GT(e.at("dur").get<double>(), 0.0);
    tid_of_span[e.at("name")] = e.at("tid");
  }
  EXPECT_EQ(span_events, p.timeline.spans().size());
  // Spans keep their tracks: CPU spans on thread 1, kernels on the GPU stream's thread 2.
  EXPECT_EQ(tid_of_span.at("aten::addmm"), 1);
  EXPECT_EQ(tid_of_span.at("sgemm_128x64"), 2);
  for (const json& e : spans) {
    if (e.at("name") == "aten::addmm") {
      EXPECT_EQ(e.at("args").at("path"), "train_step/forward/aten::addmm");
      EXPECT_EQ(e.at("args").at("shape"), "[32,768]x[768,3072]");
      EXPECT_DOUBLE_EQ(e.at("ts").get<double>(), 200'000.0);  // µs from the run's start
      EXPECT_DOUBLE_EQ(e.at("dur").get<double>(), 400'000.0);
    }
  }
  const auto marks = events_with(doc, "i");
  ASSERT_EQ(marks.size(), 1u);
  EXPECT_EQ(marks[0].at("name"), "epoch_end");
}

TEST(TraceReport, APowerCounterPerChannelLabelledWithProvenance) {
  const json doc = render_trace(testing::sample_profile());
  std::map<std::string, std::vector<double>> counters;
  for (const json& c : events_with(doc, "C")) {
    const json& args = c.at("args");
    counters[c.at("name")].push_back(args.contains("W") ? args.at("W").get<double>()
                                                        : args.at("value").get<double>());
  }
  ASSERT_TRUE(counters.contains("power rapl:package-0 (W, measured)"));
  ASSERT_TRUE(counters.contains("power rapl:package-0/core (W, measured)"));
  ASSERT_TRUE(counters.contains("power nvml:0:power (W, measured)"));
  ASSERT_TRUE(counters.contains("temperature nvml:0:temp (°C)"));
  // The package counter rises 0.2 J per 10 ms: differentiated, 20 W at every update.
  const auto& pkg = counters["power rapl:package-0 (W, measured)"];
  ASSERT_EQ(pkg.size(), 200u);
  for (double w : pkg) EXPECT_NEAR(w, 20.0, 1e-9);
  // GPU power: the interval inside the 100 ms gap is left out.
  const auto& gpu = counters["power nvml:0:power (W, measured)"];
  EXPECT_EQ(gpu.size(), 19u);
  EXPECT_NEAR(gpu.front(), 102.5, 1e-9);
  EXPECT_EQ(counters["temperature nvml:0:temp (°C)"].size(), 21u);
  bool gap_slice = false;
  for (const json& e : events_with(doc, "X"))
    gap_slice |= e.at("cat") == "gap" && e.at("name") == "gap: NVML timeout";
  EXPECT_TRUE(gap_slice);
}

TEST(TraceReport, ACoarseCounterPolledFastGivesOneStepPerUpdate) {
  Profile p;
  p.meta.begin_ns = 0;
  p.meta.end_ns = 1'000 * kNsPerMs;
  Channel c{"nvml:0:energy",       "nvml", "gpu0", "gpu",          ChannelKind::kEnergyCounter,
            Provenance::kMeasured, "",     "",     100 * kNsPerMs, 0};
  Series s(c);
  // Polled every 1 ms, updates every 100 ms by 10 J: 100 W, never 0 W and never 10 kW spikes.
  for (int i = 0; i <= 1000; ++i) ASSERT_TRUE(s.append(i * kNsPerMs, 10.0 * (i / 100)).ok());
  p.series.push_back(std::move(s));
  const json doc = render_trace(p);
  const auto counters = events_with(doc, "C");
  ASSERT_EQ(counters.size(), 10u);
  for (const json& e : counters) EXPECT_NEAR(e.at("args").at("W").get<double>(), 100.0, 1e-9);
}

TEST(TraceReport, LongSeriesAreAveragedIntoTheRequestedNumberOfPoints) {
  ReportOptions options;
  options.trace_power_points = 50;
  const json doc = render_trace(testing::sample_profile(), options);
  std::size_t pkg = 0;
  for (const json& c : events_with(doc, "C")) {
    if (c.at("name") == "power rapl:package-0 (W, measured)") {
      ++pkg;
      EXPECT_NEAR(c.at("args").at("W").get<double>(), 20.0, 1e-9);
    }
  }
  EXPECT_EQ(pkg, 50u);
}

TEST(TraceReport, MetadataNamesTheTimeOrigin) {
  const Profile p = testing::sample_profile();
  const json doc = render_trace(p);
  EXPECT_EQ(doc.at("otherData").at("time_origin_monotonic_ns").get<TimeNs>(), p.meta.begin_ns);
  EXPECT_DOUBLE_EQ(doc.at("otherData").at("total_energy_j").get<double>(), 280.0);
  EXPECT_EQ(doc.at("displayTimeUnit"), "ms");
}

TEST(TraceReport, ASpanOnAMissingTrackIsAnInputError) {
  Profile p = testing::sample_profile();
  p.timeline.spans().push_back(Span{0, 1, 99, 0});
  auto text = render_report("trace", p);
  ASSERT_FALSE(text.ok());
  EXPECT_NE(text.error().message().find("timeline.spans["), std::string::npos);
}

}  // namespace
}  // namespace jouleprof
