#include "jouleprof/measurement_json.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace jouleprof {
namespace {

TEST(MeasurementJson, AGatedResultCarriesItsSchemaAndFigures) {
  GatedResult r;
  GatedRepetition rep;
  rep.calls = 3;
  rep.window_ns = 2 * kNsPerS;
  ChannelCall call;
  call.channel_id = "rapl:package-0";
  call.net_j = 1.5;
  rep.channels.push_back(call);
  r.repetitions.push_back(rep);
  r.incomplete = true;
  r.missing = "stopped after 1 of 5 repetitions";
  r.profile.meta.options.gated.preset = "fecom";
  const nlohmann::json j = nlohmann::json::parse(to_json(r));
  EXPECT_EQ(j.at("schema"), "jouleprof.gated");
  EXPECT_EQ(j.at("schema_version"), kMeasurementJsonVersion);
  EXPECT_EQ(j.at("preset"), "fecom");
  ASSERT_EQ(j.at("repetitions").size(), 1U);
  EXPECT_EQ(j.at("repetitions")[0].at("calls"), 3);
  EXPECT_EQ(j.at("repetitions")[0].at("per_call")[0].at("channel"), "rapl:package-0");
  EXPECT_EQ(j.at("repetitions")[0].at("per_call")[0].at("net_j"), 1.5);
  EXPECT_EQ(j.at("incomplete"), true);
  EXPECT_EQ(j.at("missing"), "stopped after 1 of 5 repetitions");
}

TEST(MeasurementJson, AutoWindowAndFecomRecordsAreVersionedToo) {
  AutoWindowResult w;
  w.stable = true;
  w.window_ns = 4 * kNsPerS;
  w.sweep.push_back(AutoWindowSetting{});
  const nlohmann::json a = nlohmann::json::parse(to_json(w));
  EXPECT_EQ(a.at("schema"), "jouleprof.auto-window");
  EXPECT_EQ(a.at("schema_version"), kMeasurementJsonVersion);
  EXPECT_EQ(a.at("window_ns"), 4 * kNsPerS);
  EXPECT_EQ(a.at("sweep").size(), 1U);

  FecomAnalysis f;
  f.experiments = 2;
  const nlohmann::json r = nlohmann::json::parse(to_json(f, 0));
  EXPECT_EQ(r.at("schema"), "jouleprof.fecom-records");
  EXPECT_EQ(r.at("experiments"), 2);
  EXPECT_TRUE(r.at("calls").empty());
}

}  // namespace
}  // namespace jouleprof
