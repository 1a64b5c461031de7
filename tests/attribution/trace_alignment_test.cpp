#include "attribution/trace_alignment.hpp"

#include <gtest/gtest.h>

#include <string>

#include "jouleprof/attribution.hpp"

namespace jouleprof::attribution {
namespace {

// The anchor puts monotonic 0 at 2026-01-01 00:00:00 UTC, so that messages read as dates.
constexpr TimeNs kNewYear2026Ns = 1'767'225'600'000'000'000;
constexpr ClockAnchor kAnchor{0, kNewYear2026Ns};

Series counter(std::string id, TimeNs begin_ns, TimeNs end_ns, double watts = 10.0) {
  Channel c;
  c.id = std::move(id);
  c.device = "cpu0";
  Series s(c);
  for (TimeNs t = begin_ns; t <= end_ns; t += 10 * kNsPerMs)
    EXPECT_TRUE(s.append(t, watts * ns_to_s(t - begin_ns)).ok());
  return s;
}

Timeline one_span(TimeNs begin_ns, TimeNs end_ns) {
  Timeline t;
  const std::uint32_t track = t.add_track(Track{TrackKind::kCpuThread, "main", "cpu0"});
  t.add_span(Span{begin_ns, end_ns, track, t.intern("aten::addmm"), kNoIndex, kNoIndex,
                  SpanCategory::kOp, Pass::kForward});
  return t;
}

TraceClockFacts facts(bool established = true) {
  TraceClockFacts f;
  f.trace_origin = "trace.json";
  f.samples_origin = "samples.csv";
  f.clock_established = established;
  f.clock_mapping = "the trace's jouleprof::clock_sync scope";
  f.anchor = kAnchor;
  return f;
}

TEST(TraceAlignment, SamplesWindowSpansTheEnergyChannelsOnly) {
  std::vector<Series> series;
  series.push_back(counter("a", 2 * kNsPerS, 3 * kNsPerS));
  series.push_back(counter("b", 1 * kNsPerS, 2500 * kNsPerMs));
  Channel temperature;
  temperature.id = "temp";
  temperature.kind = ChannelKind::kTemperature;
  series.emplace_back(temperature);
  ASSERT_TRUE(series.back().append(0, 40.0).ok());
  const auto window = samples_window(series);
  ASSERT_TRUE(window.has_value());
  EXPECT_EQ(window->begin_ns, 1 * kNsPerS);
  EXPECT_EQ(window->end_ns, 3 * kNsPerS);
  EXPECT_FALSE(samples_window({}).has_value());
}

TEST(TraceAlignment, ShareInsideCountsTheOverlapOfEachSpan) {
  const Timeline t = one_span(0, 4 * kNsPerS);
  EXPECT_DOUBLE_EQ(span_time_share_inside(t, TimeWindow{kNsPerS, 2 * kNsPerS}), 0.25);
  EXPECT_DOUBLE_EQ(span_time_share_inside(t, TimeWindow{5 * kNsPerS, 6 * kNsPerS}), 0.0);
  EXPECT_DOUBLE_EQ(span_time_share_inside(Timeline{}, TimeWindow{0, 1}), 1.0);
}

TEST(TraceAlignment, UnderHalfInsideIsAnErrorNamingBothWindowsInUtc) {
  const TimeWindow samples{0, 10 * kNsPerS};
  EXPECT_TRUE(check_trace_alignment(one_span(kNsPerS, 2 * kNsPerS), samples, facts()).ok());
  // Half of it inside passes; under half fails.
  EXPECT_TRUE(check_trace_alignment(one_span(9 * kNsPerS, 11 * kNsPerS), samples, facts()).ok());
  const Status late =
      check_trace_alignment(one_span(3600 * kNsPerS, 3601 * kNsPerS), samples, facts());
  ASSERT_FALSE(late.ok());
  const std::string& m = late.error().message();
  EXPECT_EQ(m.rfind("trace.json: only 0.0 % of the spans' time", 0), 0U) << m;
  EXPECT_NE(m.find("spans 2026-01-01 01:00:00.000 UTC to 2026-01-01 01:00:01.000 UTC"),
            std::string::npos)
      << m;
  EXPECT_NE(m.find("samples of samples.csv 2026-01-01 00:00:00.000 UTC to 2026-01-01 "
                   "00:00:10.000 UTC (10.000 s)"),
            std::string::npos)
      << m;
  EXPECT_NE(m.find("clock_sync"), std::string::npos) << m;
  EXPECT_NE(m.find("to fix it"), std::string::npos) << m;
  EXPECT_EQ(m.find("--"), std::string::npos) << "library errors name no command-line flag";
}

TEST(TraceAlignment, ATraceWithoutAClockIsAnErrorEvenWhenItsTimesHappenToFit) {
  const Status s = check_trace_alignment(one_span(kNsPerS, 2 * kNsPerS),
                                         TimeWindow{0, 10 * kNsPerS}, facts(/*established=*/false));
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message().find("the trace's times have no known clock"), std::string::npos)
      << s.error().message();
}

Profile attributed_profile(TimeNs span_begin_ns, TimeNs span_end_ns, const std::string& device) {
  Profile p;
  p.series.push_back(counter("meter", 0, kNsPerS));
  p.series.back().channel().device = device;
  p.timeline = one_span(span_begin_ns, span_end_ns);
  EXPECT_TRUE(attribute_profile(p, AttributionOptions{}).ok());
  return p;
}

TEST(TraceAlignment, AnAttributionWhereNoSpanGotEnergyIsAnError) {
  EXPECT_TRUE(check_energy_reached_spans(attributed_profile(0, kNsPerS / 2, "cpu0")).ok());
  const Status elsewhere = check_energy_reached_spans(attributed_profile(0, kNsPerS / 2, "gpu0"));
  ASSERT_FALSE(elsewhere.ok());
  const std::string& m = elsewhere.error().message();
  EXPECT_NE(m.find("no span received any of the"), std::string::npos) << m;
  EXPECT_NE(m.find("tracks of device(s) 'cpu0'"), std::string::npos) << m;
  EXPECT_NE(m.find("channels are on device(s) 'gpu0'"), std::string::npos) << m;

  Profile flat = attributed_profile(0, kNsPerS / 2, "cpu0");
  for (Series& s : flat.series) {
    Series zero(s.channel());
    for (std::size_t i = 0; i < s.size(); ++i) ASSERT_TRUE(zero.append(s[i].t_ns, 5.0).ok());
    s = std::move(zero);
  }
  ASSERT_TRUE(attribute_profile(flat, AttributionOptions{}).ok());
  const Status none = check_energy_reached_spans(flat);
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.error().message().find("no energy was measured"), std::string::npos)
      << none.error().message();

  EXPECT_FALSE(check_energy_reached_spans(Profile{}).ok());
}

TEST(TraceAlignment, AdoptTraceRecordsHowItWasReadAndWarnsOfUnlinkedBackwardTime) {
  Profile p;
  p.meta.anchor = kAnchor;
  p.series.push_back(counter("meter", 0, 10 * kNsPerS));
  TraceImport imported;
  imported.timeline = one_span(kNsPerS, 2 * kNsPerS);
  imported.format = TraceFormat::kKineto;
  imported.clock_mapping = "the trace's jouleprof::clock_sync scope";
  imported.warnings.push_back("3 E event(s) without a B event were left out");
  imported.backward = BackwardLinkStats{10, 10, 4, 100 * kNsPerMs, 100 * kNsPerMs, 40 * kNsPerMs};
  ASSERT_TRUE(adopt_trace(p, std::move(imported), "trace.json", "samples.csv").ok());
  EXPECT_EQ(p.timeline.spans().size(), 1U);
  EXPECT_EQ(p.meta.options.trace.path, "trace.json");
  EXPECT_EQ(p.meta.options.trace.format, TraceFormat::kKineto);
  EXPECT_DOUBLE_EQ(p.meta.options.trace.backward_module_share.value(), 0.4);
  EXPECT_DOUBLE_EQ(p.meta.options.trace.backward_linked_share.value(), 1.0);
  ASSERT_EQ(p.warnings.size(), 2U);
  EXPECT_EQ(p.warnings[0], "trace.json: 3 E event(s) without a B event were left out");
  EXPECT_NE(p.warnings[1].find("60.0 % of the backward pass's 0.100 s stays directly under "
                               "[backward]"),
            std::string::npos)
      << p.warnings[1];
  EXPECT_NE(p.warnings[1].find("outside every module scope"), std::string::npos) << p.warnings[1];

  // Hooks put on a model that never ran forward: the warning says so instead of how to record.
  Profile other_object;
  other_object.series.push_back(counter("meter", 0, 10 * kNsPerS));
  TraceImport trained;
  trained.timeline = one_span(kNsPerS, 2 * kNsPerS);
  trained.backward = BackwardLinkStats{10, 10, 0, 100 * kNsPerMs, 100 * kNsPerMs, 0};
  trained.scoped_models_not_run = {"Net"};
  ASSERT_TRUE(adopt_trace(other_object, std::move(trained), "trace.json", "samples.csv").ok());
  ASSERT_EQ(other_object.warnings.size(), 1U);
  EXPECT_NE(other_object.warnings[0].find(
                "outside every module scope (no forward of the profiled model Net ran inside the "
                "block, so probably a different module object was trained than the one passed to "
                "jouleprof.torch.profile"),
            std::string::npos)
      << other_object.warnings[0];
  EXPECT_EQ(other_object.warnings[0].find("record it inside"), std::string::npos);
  // Without a backward pass (inference), a warning of its own.
  Profile inference;
  inference.series.push_back(counter("meter", 0, 10 * kNsPerS));
  TraceImport ran;
  ran.timeline = one_span(kNsPerS, 2 * kNsPerS);
  ran.scoped_models_not_run = {"Net"};
  ASSERT_TRUE(adopt_trace(inference, std::move(ran), "trace.json", "samples.csv").ok());
  ASSERT_EQ(inference.warnings.size(), 1U);
  EXPECT_EQ(inference.warnings[0],
            "trace.json: no forward of the profiled model Net ran inside the block, so none of its "
            "modules is in the tree: if a model ran, it was a different module object than the "
            "one passed to jouleprof.torch.profile or module_scopes");

  // Samples without an energy reading cannot place any trace.
  Profile empty;
  EXPECT_FALSE(adopt_trace(empty, TraceImport{}, "trace.json", "samples.csv").ok());
}

}  // namespace
}  // namespace jouleprof::attribution
