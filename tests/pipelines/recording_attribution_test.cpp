// attribute_recording: the `attribute` job the CLI, the C API and Python share (their agreement
// is tests/python/test_front_ends_agree.py); here the options' meaning and the typed errors.
#include "jouleprof/recording_attribution.hpp"

#include <gtest/gtest.h>

#include <string>

#include "jouleprof/clock.hpp"
#include "pipelines/ten_watt_run.hpp"
#include "test_support.hpp"

namespace jouleprof {
namespace {

using ::jouleprof::testing::TempDir;

// A 10 W counter on cpu0 over [1 s, 2 s], read every 10 ms; spans "a" [1.1, 1.3) and "b"
// [1.5, 1.6) on one cpu0 thread; run window [1 s, 2 s].
Profile ten_watt_recording() {
  Profile p = ::jouleprof::testing::ten_watt_run();
  const std::uint32_t track =
      p.timeline.add_track(Track{TrackKind::kCpuThread, "thread 1", "cpu0"});
  const auto span = [&](const char* name, TimeNs b, TimeNs e) {
    Span sp;
    sp.begin_ns = b;
    sp.end_ns = e;
    sp.track = track;
    sp.name = p.timeline.intern(name);
    p.timeline.add_span(sp);
  };
  span("a", 1100 * kNsPerMs, 1300 * kNsPerMs);
  span("b", 1500 * kNsPerMs, 1600 * kNsPerMs);
  return p;
}

double child_energy(const Profile& p, const std::string& name) {
  for (const ProfileNode& c : p.tree->children)
    if (c.name == name) return c.energy_j;
  return -1.0;
}

TEST(RecordingAttribution, TheRunWindowSumsToTheMeasuredTotalAndTheTimelineWindowToTheSpans) {
  Profile run = ten_watt_recording();
  ASSERT_TRUE(attribute_recording(run, {}).ok());
  EXPECT_NEAR(run.tree->energy_j, 10.0, 1e-9);
  EXPECT_NEAR(child_energy(run, "a"), 2.0, 1e-9);
  EXPECT_EQ(run.meta.options.attribution.window, AttributionWindow::kRun);

  Profile spans = ten_watt_recording();
  RecordingAttributionOptions options;
  options.window = AttributionWindow::kTimeline;
  ASSERT_TRUE(attribute_recording(spans, options).ok());
  EXPECT_NEAR(spans.tree->energy_j, 5.0, 1e-9);  // [1.1 s, 1.6 s]
  EXPECT_EQ(spans.meta.options.attribution.window, AttributionWindow::kTimeline);
}

TEST(RecordingAttribution, MarksBoundTheRunWindow) {
  Profile p = ten_watt_recording();
  RecordingAttributionOptions options;
  options.marks = {{"run_begin", 1100 * kNsPerMs}, {"run_end", 1600 * kNsPerMs}};
  ASSERT_TRUE(attribute_recording(p, options).ok());
  EXPECT_NEAR(p.tree->energy_j, 5.0, 1e-9);
  EXPECT_EQ(p.timeline.marks().size(), 2u);
}

TEST(RecordingAttribution, IdlePowerOfEveryChannelGivesWayToAChannelsOwn) {
  Profile every = ten_watt_recording();
  RecordingAttributionOptions options;
  options.idle_power_w = 4.0;
  ASSERT_TRUE(attribute_recording(every, options).ok());
  ASSERT_TRUE(every.tree->static_energy_j.has_value());
  EXPECT_NEAR(*every.tree->static_energy_j, 4.0, 1e-9);

  Profile own = ten_watt_recording();
  options.idle_power_w_by_channel["meter"] = 2.0;
  ASSERT_TRUE(attribute_recording(own, options).ok());
  EXPECT_NEAR(*own.tree->static_energy_j, 2.0, 1e-9);
}

TEST(RecordingAttribution, AnUnknownChannelMovesNoChannelAndListsTheKnownOnes) {
  Profile p = ten_watt_recording();
  RecordingAttributionOptions options;
  options.channel_devices = {{"meter", "gpu0"}, {"nosuch", "gpu0"}};
  const Result<RecordingAttribution> r = attribute_recording(p, options);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message().find("'nosuch': is not a channel of the samples (meter)"),
            std::string::npos)
      << r.error().message();
  EXPECT_EQ(p.series[0].channel().device, "cpu0");
}

TEST(RecordingAttribution, ErrorsSayWhatTheyAreAbout) {
  Profile elsewhere = ten_watt_recording();
  RecordingAttributionOptions options;
  options.channel_devices = {{"meter", "gpu0"}};
  const Result<RecordingAttribution> devices = attribute_recording(elsewhere, options);
  ASSERT_FALSE(devices.ok());
  EXPECT_EQ(devices.error().subject(), ErrorSubject::kChannelDevices);
  EXPECT_FALSE(elsewhere.series.empty());  // the measurement is kept

  Profile empty = ten_watt_recording();
  empty.timeline = Timeline();
  const Result<RecordingAttribution> none = attribute_recording(empty, {});
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error().subject(), ErrorSubject::kNoSpans);
  EXPECT_NE(none.error().message().find("empty: no spans"), std::string::npos);
}

TEST(RecordingAttribution, AFileRecordingIsTheAttributeJob) {
  TempDir dir;
  std::string csv = "t_ns,channel,kind,value\n";
  for (int i = 0; i <= 100; ++i) {
    csv += std::to_string(kNsPerS + i * 10 * kNsPerMs) + ",meter,energy_j," +
           std::to_string(0.1 * i) + "\n";
  }
  RecordingFiles files;
  files.samples = dir.write("samples.csv", csv).string();
  files.meta = dir.write("meta.json", R"({"marks": [["run_begin", 1000000000],
                                                    ["run_end", 2000000000]]})")
                   .string();
  RecordingAttributionOptions options;
  options.trace_path = dir.write("trace.json", R"({"traceEvents": [
      {"name": "step", "ph": "X", "ts": 100000, "dur": 500000, "pid": 1, "tid": 1}]})")
                           .string();
  options.trace_offset_ns = kNsPerS;
  const Result<AttributedRecording> r = attribute_recording_files(files, options);
  ASSERT_TRUE(r.ok()) << r.error().message();
  EXPECT_EQ(r->profile.meta.kind, "attribute");
  EXPECT_EQ(r->profile.meta.command,
            (std::vector<std::string>{"attribute", options.trace_path, files.samples}));
  EXPECT_NEAR(r->profile.tree->energy_j, 10.0, 1e-9);
  EXPECT_NEAR(child_energy(r->profile, "step"), 5.0, 1e-6);
  EXPECT_FALSE(r->found.clock_mapping.empty());

  files.samples = (dir.path() / "missing.csv").string();
  const Result<AttributedRecording> missing = attribute_recording_files(files, options);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message().find("missing.csv"), std::string::npos);
}

}  // namespace
}  // namespace jouleprof
