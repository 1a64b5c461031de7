// The monitor, external-span and attribution sections of the C API, called as a C program would,
// with the profiles they write read back through the C++ library.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <fstream>
#include <optional>
#include <string>

#include "jouleprof/attribution.hpp"
#include "jouleprof/jouleprof.h"
#include "jouleprof/profile.hpp"
#include "test_support.hpp"

namespace jouleprof {
namespace {

using testing::TempDir;

constexpr const char* kFortyWatts = R"({"settings": {"simulate.watts": 40}, "interval_ms": 2})";

void busy_for_ms(std::int64_t ms) {
  const std::int64_t until = jp_now_ns() + ms * 1'000'000;
  while (jp_now_ns() < until) {
  }
}

double sum_of_children_j(const ProfileNode& node) {
  double sum = 0.0;
  for (const ProfileNode& child : node.children) sum += child.energy_j;
  return sum;
}

const ProfileNode* find_node(const ProfileNode& node, std::string_view name) {
  if (node.name == name) return &node;
  for (const ProfileNode& child : node.children) {
    if (const ProfileNode* found = find_node(child, name)) return found;
  }
  return nullptr;
}

TEST(MonitorCApi, MeasuresRegionsAndTheTreeSumsToTheMeasuredTotal) {
  const TempDir dir;
  const std::string path = (dir.path() / "profile.json").string();
  jp_monitor* monitor = nullptr;
  ASSERT_EQ(jp_monitor_start("simulated", kFortyWatts, &monitor), JP_OK) << jp_last_error();
  const jp_name_id outer = jp_intern("outer");
  const jp_name_id inner = jp_intern("inner");
  busy_for_ms(20);  // outside every span: [unattributed]
  jp_begin(outer, JP_CATEGORY_REGION);
  busy_for_ms(30);
  jp_begin(inner, JP_CATEGORY_OP);
  busy_for_ms(60);
  jp_end();
  jp_end();
  jp_totals totals = JP_TOTALS_INIT;
  ASSERT_EQ(jp_monitor_stop(monitor, path.c_str(), &totals), JP_OK) << jp_last_error();
  EXPECT_EQ(totals.spans, 2U);
  EXPECT_NEAR(totals.mean_power_w, 40.0, 4.0);

  Result<Profile> profile = read_profile_json(path);
  ASSERT_TRUE(profile) << profile.error().message();
  ASSERT_TRUE(profile->tree.has_value());
  const ProfileNode& tree = *profile->tree;
  EXPECT_NEAR(tree.energy_j, totals.energy_j, 1e-6 * totals.energy_j);
  EXPECT_NEAR(sum_of_children_j(tree), tree.energy_j, 1e-6 * tree.energy_j);
  const ProfileNode* outer_node = find_node(tree, "outer");
  const ProfileNode* inner_node = find_node(tree, "inner");
  ASSERT_NE(outer_node, nullptr);
  ASSERT_NE(inner_node, nullptr);
  ASSERT_NE(find_node(*outer_node, "inner"), nullptr) << "inner nests under outer";
  // At a constant 40 W a span's energy is 40 W × its time.
  EXPECT_NEAR(inner_node->energy_j, 40.0 * ns_to_s(inner_node->time_ns),
              0.1 * inner_node->energy_j);
  EXPECT_GT(outer_node->energy_j, inner_node->energy_j);
  ASSERT_NE(find_node(tree, kUnattributedNode), nullptr);
}

// Steps recorded with JP_CATEGORY_STEP are repetitions: the totals carry one step's mean energy
// and its interval, as the profile does.
TEST(MonitorCApi, TotalsCarryTheEnergyPerStep) {
  const TempDir dir;
  const std::string path = (dir.path() / "profile.json").string();
  jp_monitor* monitor = nullptr;
  ASSERT_EQ(jp_monitor_start("simulated", kFortyWatts, &monitor), JP_OK) << jp_last_error();
  const jp_name_id step = jp_intern("step");
  for (int i = 0; i < 3; ++i) {
    jp_begin(step, JP_CATEGORY_STEP);
    busy_for_ms(20);
    jp_end();
  }
  jp_totals totals = JP_TOTALS_INIT;
  ASSERT_EQ(jp_monitor_stop(monitor, path.c_str(), &totals), JP_OK) << jp_last_error();
  Result<Profile> profile = read_profile_json(path);
  ASSERT_TRUE(profile) << profile.error().message();
  ASSERT_TRUE(profile->energy_per_step.has_value());
  EXPECT_EQ(totals.steps, 3U);
  EXPECT_DOUBLE_EQ(totals.step_energy_j, profile->energy_per_step->stats.mean);
  EXPECT_DOUBLE_EQ(totals.step_low_j, profile->energy_per_step->band.low_j);
  EXPECT_DOUBLE_EQ(totals.step_high_j, profile->energy_per_step->band.high_j);
  EXPECT_NEAR(totals.step_energy_j, 40.0 * 0.020, 0.5 * 40.0 * 0.020);
}

// The monitor observes its own process by default: every channel carries this process's share,
// and its threads weigh their spans.
TEST(MonitorCApi, ObservesItsOwnProcessByDefault) {
  const TempDir dir;
  const std::string path = (dir.path() / "profile.json").string();
  jp_monitor* monitor = nullptr;
  ASSERT_EQ(jp_monitor_start("simulated", kFortyWatts, &monitor), JP_OK) << jp_last_error();
  const jp_name_id work = jp_intern("work");
  jp_begin(work, JP_CATEGORY_REGION);
  busy_for_ms(250);
  jp_end();
  jp_totals totals = JP_TOTALS_INIT;
  ASSERT_EQ(jp_monitor_stop(monitor, path.c_str(), &totals), JP_OK) << jp_last_error();
  Result<Profile> profile = read_profile_json(path);
  ASSERT_TRUE(profile) << profile.error().message();
  ASSERT_EQ(profile->channels.size(), 1U);
  const ChannelSummary& c = profile->channels[0];
  ASSERT_TRUE(c.process.has_value());
  EXPECT_EQ(c.process->rule, "cpu-time");
  EXPECT_GT(c.process->energy_j, 0.0);
  EXPECT_LE(c.process->energy_j, c.energy_j * (1 + 1e-12));
  EXPECT_EQ(profile->meta.options.process.observed,
            fmt::format("pid {} and its descendants", getpid()));
  EXPECT_NE(profile->find_series(fmt::format("processes:thread:{}", gettid())), nullptr)
      << "the recording thread has a CPU-time series";
  EXPECT_NEAR(totals.energy_j, profile->total_energy_j(), 1e-9);  // jp_totals: the machine's
}

TEST(MonitorCApi, ObserveNoneOrABadValue) {
  const TempDir dir;
  const std::string path = (dir.path() / "profile.json").string();
  jp_monitor* monitor = nullptr;
  ASSERT_EQ(
      jp_monitor_start("simulated", R"({"settings": {"simulate.watts": 10}, "observe": "none"})",
                       &monitor),
      JP_OK)
      << jp_last_error();
  jp_totals totals = JP_TOTALS_INIT;
  ASSERT_EQ(jp_monitor_stop(monitor, path.c_str(), &totals), JP_OK) << jp_last_error();
  Result<Profile> profile = read_profile_json(path);
  ASSERT_TRUE(profile);
  EXPECT_FALSE(profile->channels.at(0).process.has_value());
  EXPECT_EQ(profile->find_series("processes:cpu:cpu-time"), nullptr);

  EXPECT_EQ(jp_monitor_start("simulated", R"({"observe": {"pid": -3}})", &monitor),
            JP_ERR_INVALID_INPUT);
  EXPECT_NE(std::string(jp_last_error()).find("observe"), std::string::npos) << jp_last_error();
  EXPECT_EQ(jp_monitor_start("simulated", R"({"static_share": "half"})", &monitor),
            JP_ERR_INVALID_INPUT);
  EXPECT_NE(std::string(jp_last_error()).find("static_share"), std::string::npos);
}

TEST(MonitorCApi, WithoutSpanRecordingTheProfileHasNoTree) {
  const TempDir dir;
  const std::string path = (dir.path() / "profile.json").string();
  jp_monitor* monitor = nullptr;
  ASSERT_EQ(
      jp_monitor_start("simulated",
                       R"({"settings": {"simulate.watts": 10}, "record_spans": false})", &monitor),
      JP_OK)
      << jp_last_error();
  EXPECT_EQ(jp_recorder_enabled(), 0);
  busy_for_ms(30);
  jp_totals totals = JP_TOTALS_INIT;
  ASSERT_EQ(jp_monitor_stop(monitor, path.c_str(), &totals), JP_OK) << jp_last_error();
  EXPECT_EQ(totals.spans, 0U);
  EXPECT_GT(totals.energy_j, 0.0);
  Result<Profile> profile = read_profile_json(path);
  ASSERT_TRUE(profile) << profile.error().message();
  EXPECT_FALSE(profile->tree.has_value());
}

TEST(MonitorCApi, TotalsCarryTheProfilesIntervalAndAnUnsetSizeKeepsTheProfile) {
  const TempDir dir;
  const std::string path = (dir.path() / "profile.json").string();
  jp_monitor* monitor = nullptr;
  ASSERT_EQ(jp_monitor_start("simulated", kFortyWatts, &monitor), JP_OK) << jp_last_error();
  busy_for_ms(30);
  jp_totals totals = JP_TOTALS_INIT;
  ASSERT_EQ(jp_monitor_stop(monitor, path.c_str(), &totals), JP_OK) << jp_last_error();
  Result<Profile> profile = read_profile_json(path);
  ASSERT_TRUE(profile) << profile.error().message();
  const std::optional<EnergyBand> band = profile->total_energy_band();
  ASSERT_TRUE(band.has_value());
  EXPECT_DOUBLE_EQ(totals.energy_low_j, band->low_j);
  EXPECT_DOUBLE_EQ(totals.energy_high_j, band->high_j);
  EXPECT_EQ(std::string(totals.uncertainty_dominant), to_string(band->dominant));

  // A struct whose size was not set: an error naming the field, and the profile still written.
  const std::string second = (dir.path() / "second.json").string();
  ASSERT_EQ(jp_monitor_start("simulated", kFortyWatts, &monitor), JP_OK) << jp_last_error();
  jp_totals unset{};
  EXPECT_EQ(jp_monitor_stop(monitor, second.c_str(), &unset), JP_ERR_INVALID_INPUT);
  EXPECT_NE(std::string(jp_last_error()).find("jp_totals.size is 0"), std::string::npos)
      << jp_last_error();
  EXPECT_TRUE(read_profile_json(second)) << "the measurement is kept";
}

TEST(MonitorCApi, TheProgramsWarningsAndACutShortRunReachTheProfile) {
  const TempDir dir;
  const std::string path = (dir.path() / "profile.json").string();
  jp_monitor* monitor = nullptr;
  ASSERT_EQ(jp_monitor_start("simulated", kFortyWatts, &monitor), JP_OK) << jp_last_error();
  busy_for_ms(20);
  ASSERT_EQ(jp_monitor_warn(monitor, "epoch 2 was begun but not ended"), JP_OK) << jp_last_error();
  ASSERT_EQ(jp_monitor_cut_short(monitor, "the block raised KeyboardInterrupt"), JP_OK);
  EXPECT_EQ(jp_monitor_warn(monitor, nullptr), JP_ERR_INVALID_INPUT);
  EXPECT_EQ(jp_monitor_cut_short(nullptr, "x"), JP_ERR_INVALID_INPUT);
  ASSERT_EQ(jp_monitor_stop(monitor, path.c_str(), nullptr), JP_OK) << jp_last_error();
  Result<Profile> profile = read_profile_json(path);
  ASSERT_TRUE(profile) << profile.error().message();
  EXPECT_TRUE(profile->meta.partial);
  // After the monitor's own (other processes' share of the machine, when they worked).
  const std::vector<std::string>& warnings = profile->warnings;
  ASSERT_GE(warnings.size(), 2U);
  EXPECT_EQ(std::vector<std::string>(warnings.end() - 2, warnings.end()),
            (std::vector<std::string>{"epoch 2 was begun but not ended",
                                      "the block raised KeyboardInterrupt"}));

  // Warnings alone do not make a run partial.
  ASSERT_EQ(jp_monitor_start("simulated", kFortyWatts, &monitor), JP_OK) << jp_last_error();
  ASSERT_EQ(jp_monitor_warn(monitor, "a note"), JP_OK);
  ASSERT_EQ(jp_monitor_stop(monitor, path.c_str(), nullptr), JP_OK) << jp_last_error();
  profile = read_profile_json(path);
  ASSERT_TRUE(profile) << profile.error().message();
  EXPECT_FALSE(profile->meta.partial);
}

TEST(MonitorCApi, ExternalSpansLandOnTheirOwnTrack) {
  const TempDir dir;
  const std::string path = (dir.path() / "profile.json").string();
  jp_monitor* monitor = nullptr;
  ASSERT_EQ(jp_monitor_start("simulated", kFortyWatts, &monitor), JP_OK) << jp_last_error();
  const std::int64_t begin_ns = jp_now_ns();
  busy_for_ms(40);
  ASSERT_EQ(jp_add_span("async work", nullptr, jp_intern("upload"), begin_ns, jp_now_ns(),
                        JP_CATEGORY_CALL),
            JP_OK)
      << jp_last_error();
  ASSERT_EQ(jp_monitor_stop(monitor, path.c_str(), nullptr), JP_OK) << jp_last_error();
  Result<Profile> profile = read_profile_json(path);
  ASSERT_TRUE(profile) << profile.error().message();
  ASSERT_EQ(profile->timeline.spans().size(), 1U);
  const Span& span = profile->timeline.spans()[0];
  EXPECT_EQ(profile->timeline.name(span.name), "upload");
  EXPECT_EQ(profile->timeline.tracks()[span.track].name, "async work");
  EXPECT_EQ(profile->timeline.tracks()[span.track].device, "cpu0");
  EXPECT_EQ(span.category, SpanCategory::kCall);
  EXPECT_EQ(jp_add_span("t", nullptr, jp_intern("x"), 10, 5, JP_CATEGORY_REGION),
            JP_ERR_INVALID_INPUT);
  EXPECT_EQ(jp_add_span("t", nullptr, JP_INVALID_NAME, 1, 5, JP_CATEGORY_REGION),
            JP_ERR_INVALID_INPUT);
}

TEST(AttributeCApi, AttributesAProfileToAnImportedTrace) {
  const TempDir dir;
  const std::string measured = (dir.path() / "measured.json").string();
  jp_monitor* monitor = nullptr;
  ASSERT_EQ(jp_monitor_start("simulated", kFortyWatts, &monitor), JP_OK) << jp_last_error();
  const std::int64_t a_ns = jp_now_ns();
  busy_for_ms(50);
  const std::int64_t b_ns = jp_now_ns();
  busy_for_ms(50);
  const std::int64_t c_ns = jp_now_ns();
  ASSERT_EQ(jp_monitor_stop(monitor, measured.c_str(), nullptr), JP_OK) << jp_last_error();

  // A generic Chrome trace on the monotonic clock (µs), as another tool in this process would
  // write it: "model" containing "forward" and then "backward".
  const auto us = [](std::int64_t ns) { return static_cast<double>(ns) / 1000.0; };
  const std::string trace =
      dir.write("trace.json", fmt::format(R"({{"traceEvents": [
    {{"ph": "X", "name": "model", "pid": 1, "tid": 1, "ts": {:.3f}, "dur": {:.3f}}},
    {{"ph": "X", "name": "forward", "pid": 1, "tid": 1, "ts": {:.3f}, "dur": {:.3f}}},
    {{"ph": "X", "name": "backward", "pid": 1, "tid": 1, "ts": {:.3f}, "dur": {:.3f}}}]}})",
                                          us(a_ns), us(c_ns - a_ns), us(a_ns), us(b_ns - a_ns),
                                          us(b_ns), us(c_ns - b_ns)))
          .string();
  const std::string out = (dir.path() / "attributed.json").string();
  ASSERT_EQ(jp_attribute(measured.c_str(), trace.c_str(), out.c_str(), nullptr), JP_OK)
      << jp_last_error();
  Result<Profile> profile = read_profile_json(out);
  ASSERT_TRUE(profile) << profile.error().message();
  ASSERT_TRUE(profile->tree.has_value());
  EXPECT_EQ(profile->meta.kind, "attribute");
  EXPECT_NEAR(profile->tree->energy_j, profile->total_energy_j(), 1e-6 * profile->total_energy_j());
  const ProfileNode* model = find_node(*profile->tree, "model");
  ASSERT_NE(model, nullptr);
  ASSERT_NE(find_node(*model, "forward"), nullptr);
  ASSERT_NE(find_node(*model, "backward"), nullptr);
  EXPECT_NEAR(model->energy_j, 40.0 * ns_to_s(c_ns - a_ns), 0.1 * model->energy_j);
}

TEST(AttributeCApi, ErrorsNameTheirCause) {
  const TempDir dir;
  const std::string out = (dir.path() / "out.json").string();
  EXPECT_EQ(jp_attribute(nullptr, nullptr, out.c_str(), nullptr), JP_ERR_INVALID_INPUT);
  const std::string missing = (dir.path() / "missing.json").string();
  EXPECT_NE(jp_attribute(missing.c_str(), nullptr, out.c_str(), nullptr), JP_OK);
  EXPECT_NE(std::string(jp_last_error()).find("missing.json"), std::string::npos);
  const std::string bad = dir.write("bad.json", "[1, 2").string();
  EXPECT_NE(jp_attribute(bad.c_str(), nullptr, out.c_str(), nullptr), JP_OK);
  EXPECT_EQ(jp_attribute(bad.c_str(), nullptr, out.c_str(), R"({"window": "week"})"),
            JP_ERR_INVALID_INPUT);
  EXPECT_NE(std::string(jp_last_error()).find("window"), std::string::npos);
}

}  // namespace
}  // namespace jouleprof
