#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <random>

#include "jouleprof/profile.hpp"
#include "test_support.hpp"

namespace jouleprof {
namespace {

Profile sample_profile() {
  Profile p;
  p.meta.tool_version = "test";
  p.meta.kind = "run";
  p.meta.command = {"sleep", "1"};
  p.meta.host = "host-a";
  p.meta.rank = 3;
  p.meta.anchor = ClockAnchor{100, 1'700'000'000'000'000'000};
  p.meta.begin_ns = 100;
  p.meta.end_ns = 2'000'000'100;
  p.meta.exit_code = 0;
  p.meta.options.unknown = {{"interval", "10ms"}};
  Channel pkg;
  pkg.id = "rapl:package-0";
  pkg.source = "rapl-powercap";
  pkg.device = "cpu0";
  pkg.domain = "package";
  Channel core = pkg;
  core.id = "rapl:package-0/core";
  core.domain = "core";
  core.parent_id = pkg.id;
  Series s(pkg);
  EXPECT_TRUE(s.append(100, 0.0));
  EXPECT_TRUE(s.append(1'000'000'100, 12.5));
  s.add_gap(Gap{5, 6, "zone vanished"});
  p.series.push_back(std::move(s));
  Series c(core);
  EXPECT_TRUE(c.append(100, 0.0));
  EXPECT_TRUE(c.append(1'000'000'100, 7.0));
  p.series.push_back(std::move(c));
  p.channels.push_back(ChannelSummary{"rapl:package-0", 12.5, 2.0, 10.5, 1'000'000'000, 12.5, 14.0,
                                      Provenance::kMeasured});
  p.channels.push_back(ChannelSummary{"rapl:package-0/core", 7.0, std::nullopt, std::nullopt,
                                      1'000'000'000, 7.0, 8.0, Provenance::kMeasured});
  const auto track = p.timeline.add_track(Track{TrackKind::kGpuStream, "stream 7", "gpu0"});
  const auto attrs = p.timeline.add_attributes({{"shape", "[32,128]"}});
  Span span{200,
            300,
            track,
            p.timeline.intern("gemm"),
            kNoIndex,
            attrs,
            SpanCategory::kKernel,
            Pass::kBackward};
  p.timeline.add_span(span);
  p.timeline.add_mark(Mark{250, track, p.timeline.intern("epoch_end")});
  ProfileNode root;
  root.name = "run";
  root.energy_j = 12.5;
  root.time_ns = 1'000'000'000;
  ProfileNode child;
  child.name = "gemm";
  child.category = SpanCategory::kKernel;
  child.energy_j = 10.0;
  child.static_energy_j = 1.0;
  child.dynamic_energy_j = 9.0;
  child.energy_by_channel_j = {{"rapl:package-0", 10.0}};
  child.energy_stats = RepetitionStats{4, 10.0, 10.1, 0.2, 9.7, 10.3};
  root.children.push_back(child);
  p.tree = root;
  AttributionDiagnostics diagnostics;
  diagnostics.update_period_ms = 1.0;
  diagnostics.class_power_w = {{"gemm", 210.5}};
  diagnostics.refinement = RefinementDiagnostics{12, 3, 2, 40.0, 55.5, 12.25, 5};
  diagnostics.calibration = CalibrationDiagnostics{2, 1, 55.0};
  diagnostics.regression = RegressionDiagnostics{30, 3, 12, false, RegressionFit{}};
  diagnostics.regression->fit->rank = 3;
  diagnostics.regression->fit->standard_error_w = {{"[idle]", 1.5}, {"gemm", 3.25}};
  p.attribution.push_back(AttributionRecord{
      "rapl:package-0", AttributionMethod::kInterpolate, "fine counter", diagnostics, {"note"}});
  p.attribution.push_back(AttributionRecord{
      "rapl:package-0/core", std::nullopt, "no readings inside the window", {}, {}});
  p.epochs.push_back(EpochSummary{150, 260, 3.5, 12});
  p.warnings.push_back("something was missing");
  return p;
}

TEST(ProfileJson, RoundTripIsIdentical) {
  const Profile original = sample_profile();
  const std::string text = profile_to_json_string(original);
  const Result<Profile> back = profile_from_json_string(text, "memory");
  ASSERT_TRUE(back) << back.error().message();
  EXPECT_EQ(profile_to_json_string(*back), text);
  EXPECT_EQ(back->series[0].gaps().size(), 1u);
  EXPECT_EQ(back->timeline.spans()[0].pass, Pass::kBackward);
  ASSERT_EQ(back->epochs.size(), 1u);
  EXPECT_EQ(back->epochs[0].counter_updates, 12u);
  EXPECT_EQ(back->epochs[0].duration_ns(), 110);
}

// A power channel's averaging window survives a round trip; a channel written without one (every
// channel before it existed) reads as an instant's.
TEST(ProfileJson, AnAveragingWindowRoundTripsAndItsAbsenceIsNone) {
  Profile p = sample_profile();
  Channel c = p.series[0].channel();
  c.id = "nvml:0:power";
  c.kind = ChannelKind::kPower;
  c.averaging_ns = kNsPerS;
  p.series.emplace_back(c);
  const std::string text = profile_to_json_string(p);
  const Result<Profile> back = profile_from_json_string(text, "memory");
  ASSERT_TRUE(back) << back.error().message();
  EXPECT_EQ(back->series.back().channel().averaging_ns, kNsPerS);
  EXPECT_EQ(back->series.front().channel().averaging_ns, 0);
  EXPECT_EQ(profile_to_json_string(*back), text);
  const nlohmann::json j = nlohmann::json::parse(text);
  EXPECT_FALSE(j["series"][0]["channel"].contains("averaging_ns"));  // written only where set
}

TEST(ProfileJson, AProfileWithoutEpochsStillReads) {
  nlohmann::json j = nlohmann::json::parse(profile_to_json_string(sample_profile()));
  j.erase("epochs");
  const Result<Profile> back = profile_from_json_string(j.dump(), "old.json");
  ASSERT_TRUE(back) << back.error().message();
  EXPECT_TRUE(back->epochs.empty());
}

TEST(ProfileJson, AnEpochEndingBeforeItBeginsIsRefused) {
  nlohmann::json j = nlohmann::json::parse(profile_to_json_string(sample_profile()));
  j["epochs"][0]["end_ns"] = 100;
  const Result<Profile> bad = profile_from_json_string(j.dump(), "p.json");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message().find("epochs[0].end_ns"), std::string::npos)
      << bad.error().message();
}

// Process figures, busy-time series and a model's static power survive a round trip; a profile
// written before them reads with none.
TEST(ProfileJson, ProcessFiguresRoundTripAndOldProfilesHaveNone) {
  Profile p = sample_profile();
  const std::string old_text = profile_to_json_string(p);
  Channel busy;
  busy.id = "processes:cpu:cpu-time";
  busy.source = "processes";
  busy.device = "cpu";
  busy.domain = "cpu-time";
  busy.kind = ChannelKind::kBusyTime;
  Series s(busy);
  EXPECT_TRUE(s.append(100, 0.0));
  EXPECT_TRUE(s.append(1'000'000'100, 0.75));
  p.series.push_back(std::move(s));
  Channel estimate = p.series[0].channel();
  estimate.id = "cpu-estimate:package";
  estimate.static_power_w = 9.0;
  p.series.emplace_back(estimate);
  p.channels[0].process = ProcessFigures{9.375, 0.75, {}, {}, ""};
  p.channels[0].process->dynamic_energy_j = 7.875;
  p.channels[0].process->others_activity_share = 0.25;
  p.channels[0].process->rule = "cpu-time";
  p.tree->provenance = Provenance::kAttributed;
  const std::string text = profile_to_json_string(p);
  const Result<Profile> back = profile_from_json_string(text, "memory");
  ASSERT_TRUE(back) << back.error().message();
  EXPECT_EQ(profile_to_json_string(*back), text);
  EXPECT_EQ(back->channels[0].process->rule, "cpu-time");
  EXPECT_EQ(back->channels[0].process->share, 0.75);
  EXPECT_EQ(back->find_series("processes:cpu:cpu-time")->channel().kind, ChannelKind::kBusyTime);
  EXPECT_EQ(back->find_series("cpu-estimate:package")->channel().static_power_w, 9.0);
  EXPECT_EQ(back->total_process_energy_j(), 9.375);

  const Result<Profile> old = profile_from_json_string(old_text, "old");
  ASSERT_TRUE(old) << old.error().message();
  EXPECT_FALSE(old->channels[0].process.has_value());
  EXPECT_FALSE(old->series[0].channel().static_power_w.has_value());
  EXPECT_FALSE(old->total_process_energy_j().has_value());
  EXPECT_EQ(old_text.find("process_"), std::string::npos) << "no keys without figures";
}

TEST(ProfileJson, TotalAddsOnlyTopLevelChannels) {
  EXPECT_DOUBLE_EQ(sample_profile().total_energy_j(), 12.5);
}

TEST(ProfileJson, TheTotalIsAsDirectAsItsLeastDirectTopLevelChannel) {
  Profile p = sample_profile();
  EXPECT_EQ(p.total_provenance(), Provenance::kMeasured);
  // A nested channel is not part of the total: its provenance does not count.
  p.channels[1].provenance = Provenance::kSimulated;
  EXPECT_EQ(p.total_provenance(), Provenance::kMeasured);
  p.channels[0].provenance = Provenance::kEstimated;
  EXPECT_EQ(p.total_provenance(), Provenance::kEstimated);
  // Without channel summaries the tree's root says where the total came from.
  p.channels.clear();
  p.tree->provenance = Provenance::kImported;
  EXPECT_EQ(p.total_provenance(), Provenance::kImported);
  EXPECT_EQ(Profile{}.total_provenance(), Provenance::kMeasured);
  EXPECT_EQ(less_direct(Provenance::kMeasured, Provenance::kPredicted), Provenance::kPredicted);
  EXPECT_EQ(less_direct(Provenance::kSimulated, Provenance::kEstimated), Provenance::kSimulated);
  EXPECT_TRUE(is_modelled(Provenance::kSimulated));
  EXPECT_FALSE(is_modelled(Provenance::kInterpolated));
}

TEST(ProfileJson, FileRoundTrip) {
  testing::TempDir dir;
  const std::string path = (dir.path() / "profile.json").string();
  ASSERT_TRUE(write_profile_json(sample_profile(), path));
  const Result<Profile> back = read_profile_json(path);
  ASSERT_TRUE(back) << back.error().message();
  EXPECT_EQ(back->meta.host, "host-a");
}

TEST(ProfileJson, BadInputNamesTheField) {
  std::string text = profile_to_json_string(sample_profile());
  const auto pos = text.find("\"provenance\":\"measured\"");
  ASSERT_NE(pos, std::string::npos);
  text.replace(pos, 23, "\"provenance\":\"guessed\"");
  const Result<Profile> bad = profile_from_json_string(text, "p.json");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message().find("p.json"), std::string::npos);
  EXPECT_NE(bad.error().message().find("guessed"), std::string::npos);
  EXPECT_FALSE(profile_from_json_string("{not json", "p.json"));
  EXPECT_FALSE(read_profile_json("/nonexistent/profile.json"));
}

// Found by fuzz/profile_json_fuzz.cpp: a number beyond a double ("4368e196991875") escaped the
// reader as an uncaught exception, and a float where an integer belongs (time_ns 1e41) was cast
// to int64 (undefined behaviour).
TEST(ProfileJson, NumbersBeyondTheirTypeAreRefused) {
  const std::string text = profile_to_json_string(sample_profile());
  const auto with = [&](const std::string& from, const std::string& to) {
    std::string t = text;
    const auto at = t.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    if (at != std::string::npos) t.replace(at, from.size(), to);
    return profile_from_json_string(t, "p.json");
  };
  const Result<Profile> huge = with("\"calls\":", "\"calls\":4368e196991875,\"x\":");
  ASSERT_FALSE(huge);
  EXPECT_NE(huge.error().message().find("p.json: not valid JSON"), std::string::npos)
      << huge.error().message();
  const Result<Profile> float_time = with("\"time_ns\":", "\"time_ns\":1e41,\"x\":");
  ASSERT_FALSE(float_time);
  EXPECT_NE(float_time.error().message().find("time_ns' is not a whole number in range (1e+41)"),
            std::string::npos)
      << float_time.error().message();
  const Result<Profile> negative_calls = with("\"calls\":", "\"calls\":-1,\"x\":");
  ASSERT_FALSE(negative_calls);
  EXPECT_NE(negative_calls.error().message().find("calls' is not a whole number in range"),
            std::string::npos)
      << negative_calls.error().message();
}

TEST(ProfileJson, LayoutIsNlohmannsDump) {
  // The writer streams the document; it lays it out as nlohmann's dump() would.
  for (int indent : {-1, 1, 2}) {
    const std::string text = profile_to_json_string(sample_profile(), indent);
    EXPECT_EQ(nlohmann::json::parse(text).dump(indent), text) << indent;
  }
}

// A profile whose tree is a chain `levels` deep.
Profile deep_profile(int levels) {
  Profile p = sample_profile();
  ProfileNode root;
  root.name = "run";
  ProfileNode* at = &root;
  for (int i = 0; i < levels; ++i) {
    at->children.emplace_back();
    at = &at->children.back();
    at->name = "level_" + std::to_string(i);
    at->energy_j = 1.0;
  }
  p.tree = std::move(root);
  return p;
}

TEST(ProfileJson, DeepTreesRoundTripInLinearSpace) {
  const Profile deep = deep_profile(100'000);
  const std::string text = profile_to_json_string(deep, 1);
  // Indentation stops growing: the file is linear in the depth, not quadratic.
  std::size_t widest = 0;
  for (std::size_t at = text.find('\n'); at != std::string::npos; at = text.find('\n', at + 1)) {
    widest = std::max(widest, text.find_first_not_of(' ', at + 1) - at - 1);
  }
  EXPECT_LE(widest, 66u);
  // 14 lines a node of at most 66 columns of indentation: under 2 kB a level (growing
  // indentation would be 100 000² / 2 × 14 bytes, 70 GB).
  EXPECT_LT(text.size(), 100'000u * 2'000u);
  const Result<Profile> back = profile_from_json_string(text, "deep.json");
  ASSERT_TRUE(back.ok()) << back.error().message();
  EXPECT_EQ(profile_to_json_string(*back, 1), text);
}

TEST(ProfileJson, ErrorsDeepInTheTreeNameAShortPath) {
  std::string text = profile_to_json_string(deep_profile(1'000));
  const std::string last = R"("name":"level_999")";
  const auto at = text.find(last);
  ASSERT_NE(at, std::string::npos);
  text.replace(at, last.size(), R"("name":7)");
  const Result<Profile> bad = profile_from_json_string(text, "deep.json");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message().find("deep.json: field 'tree[run].children[level_0]"),
            std::string::npos)
      << bad.error().message();
  EXPECT_NE(bad.error().message().find("…991 levels…"), std::string::npos) << bad.error().message();
  EXPECT_NE(bad.error().message().find(".name' is not a string (7)"), std::string::npos)
      << bad.error().message();
  EXPECT_LT(bad.error().message().size(), 400u);
}

TEST(ProfileJson, WritingIsAtomic) {
  testing::TempDir dir;
  const std::string path = (dir.path() / "profile.json").string();
  ASSERT_TRUE(write_profile_json(sample_profile(), path));
  ASSERT_TRUE(write_profile_json(sample_profile(), path));  // replaced in one rename
  std::size_t files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir.path())) {
    ++files;
    EXPECT_EQ(entry.path().filename(), "profile.json") << "no temporary file left behind";
  }
  EXPECT_EQ(files, 1u);
  const Status missing_dir =
      write_profile_json(sample_profile(), (dir.path() / "no" / "p.json").string());
  ASSERT_FALSE(missing_dir);
  EXPECT_NE(missing_dir.error().message().find("cannot open for writing"), std::string::npos);
}

TEST(ProfileJson, TimelineIndicesAreChecked) {
  std::string text = profile_to_json_string(sample_profile());
  const std::string span = "[200,300,0,0,-1,0,4,2]";
  const auto at = text.find(span);
  ASSERT_NE(at, std::string::npos) << text;
  text.replace(at, span.size(), "[200,300,0,0,0,0,4,2]");  // its own parent
  const Result<Profile> cycle = profile_from_json_string(text, "p.json");
  ASSERT_FALSE(cycle.ok());
  EXPECT_NE(cycle.error().message().find("'timeline.spans[0]' is its own ancestor"),
            std::string::npos)
      << cycle.error().message();
}

// A timeline of `n` spans like a profiler's: nested on four tracks, parents both before and after
// their children (the recorder stores a span when it ends), attributes on some; and a counter
// series read every millisecond.
Profile large_profile(std::size_t n) {
  Profile p = sample_profile();
  std::mt19937_64 rng(11);
  std::uniform_int_distribution<int> pick(0, 99);
  Timeline& t = p.timeline;
  for (int k = 0; k < 3; ++k)
    t.add_track(Track{TrackKind::kCpuThread, fmt::format("thread {}", k), "cpu0"});
  std::vector<std::uint32_t> names;
  for (int k = 0; k < 300; ++k) names.push_back(t.intern(fmt::format("aten::op_{}", k)));
  const std::uint32_t attrs = t.add_attributes({{"Input Dims", "[[32, 128], [128]]"}});
  TimeNs at = 1'000'000;
  while (t.spans().size() + 3 <= n) {
    const auto track = static_cast<std::uint32_t>(pick(rng) % t.tracks().size());
    const auto first = static_cast<std::uint32_t>(t.spans().size());
    const TimeNs length = 1'000 + pick(rng) * 37;
    // A child stored before its parent, and one after it.
    t.add_span(Span{at + 10, at + length / 2, track, names[pick(rng)], first + 1, kNoIndex,
                    SpanCategory::kOp, Pass::kForward});
    t.add_span(Span{at, at + length, track, names[pick(rng)], kNoIndex,
                    pick(rng) < 10 ? attrs : kNoIndex, SpanCategory::kLayer, Pass::kBackward});
    t.add_span(Span{at + length / 2, at + length - 5, track, names[pick(rng)], first + 1, kNoIndex,
                    SpanCategory::kKernel, Pass::kNone});
    at += length + pick(rng);
  }
  Channel counter;
  counter.id = "nvml:0:energy";
  counter.source = "nvml";
  counter.device = "gpu0";
  counter.domain = "gpu";
  counter.label = "NVIDIA H200";
  Series s(counter);
  double energy = 100.0;
  for (TimeNs ns = 0; ns < at; ns += 1'000'000 + pick(rng)) {
    EXPECT_TRUE(s.append(ns, energy));
    energy += 0.3 + pick(rng) / 1000.0;
  }
  p.series.push_back(std::move(s));
  return p;
}

TEST(ProfileJson, PackedAndExpandedReadBackTheSame) {
  const Profile original = large_profile(30'000);
  const std::string expanded = profile_to_json_string(original, 1);
  const std::string packed = profile_to_json_string(original, 1, ProfileArrays::kPacked);
  const Result<Profile> back = profile_from_json_string(packed, "packed.json");
  ASSERT_TRUE(back.ok()) << back.error().message();
  EXPECT_EQ(profile_to_json_string(*back, 1), expanded);
  EXPECT_EQ(back->series.back().channel().label, "NVIDIA H200");
  EXPECT_FALSE(back->attribution.at(1).method.has_value()) << "written and read as \"none\"";
  // Both forms carry the current version; the packed one is far smaller.
  EXPECT_EQ(nlohmann::json::parse(packed).at("schema_version"), kProfileSchemaVersion);
  EXPECT_LT(packed.size() * 4, expanded.size());
}

TEST(ProfileJson, FilesArePackedAndTheStringIsExpanded) {
  testing::TempDir dir;
  const std::string path = (dir.path() / "profile.json").string();
  ASSERT_TRUE(write_profile_json(sample_profile(), path));
  const nlohmann::json file = nlohmann::json::parse(testing::read_file(path));
  EXPECT_EQ(file.at("timeline").at("spans").at("encoding"), "packed-columns-1");
  EXPECT_EQ(file.at("timeline").at("spans").at("count"), 1);
  EXPECT_EQ(file.at("series").at(0).at("samples").at("count"), 2);
  EXPECT_EQ(file.at("timeline").at("attributes").at("keys"), nlohmann::json::array({"shape"}));
  const nlohmann::json text = nlohmann::json::parse(profile_to_json_string(sample_profile()));
  EXPECT_TRUE(text.at("timeline").at("spans").is_array());
  const Result<Profile> back = read_profile_json(path);
  ASSERT_TRUE(back.ok()) << back.error().message();
  EXPECT_EQ(profile_to_json_string(*back), profile_to_json_string(sample_profile()));
}

TEST(ProfileJson, VersionOneProfilesStillRead) {
  nlohmann::json j = nlohmann::json::parse(profile_to_json_string(sample_profile()));
  j["schema_version"] = 1;
  // Version 1 had no labels, and put an nvidia-smi log's GPU name into the device.
  j["series"][0]["channel"].erase("label");
  j["series"][1]["channel"].erase("label");
  j["series"][1]["channel"]["device"] = "gpu0 NVIDIA GeForce RTX 3090";
  const Result<Profile> back = profile_from_json_string(j.dump(), "v1.json");
  ASSERT_TRUE(back.ok()) << back.error().message();
  EXPECT_EQ(back->schema_version, 1);
  EXPECT_EQ(back->timeline.spans().size(), 1u);
  EXPECT_EQ(back->series[0].channel().device, "cpu0");
  EXPECT_EQ(back->series[0].channel().label, "");
  EXPECT_EQ(back->series[1].channel().device, "gpu0");
  EXPECT_EQ(back->series[1].channel().label, "NVIDIA GeForce RTX 3090");
  j["schema_version"] = kProfileSchemaVersion + 1;
  const Result<Profile> newer = profile_from_json_string(j.dump(), "new.json");
  ASSERT_FALSE(newer.ok());
  EXPECT_NE(newer.error().message().find(
                fmt::format("is newer than this jouleprof reads ({})", kProfileSchemaVersion)),
            std::string::npos)
      << newer.error().message();
}

TEST(ProfileJson, DamagedPackedColumnsNameTheirField) {
  const nlohmann::json good = nlohmann::json::parse(
      profile_to_json_string(large_profile(3'000), -1, ProfileArrays::kPacked));
  const auto error_after = [&](const std::function<void(nlohmann::json&)>& damage) {
    nlohmann::json j = good;
    damage(j);
    const Result<Profile> r = profile_from_json_string(j.dump(), "p.json");
    return r.ok() ? std::string("(read)") : r.error().message();
  };
  const auto spans = [](nlohmann::json& j) -> nlohmann::json& { return j["timeline"]["spans"]; };
  const std::uint64_t count = good["timeline"]["spans"]["count"];
  EXPECT_NE(error_after([&](nlohmann::json& j) { spans(j)["count"] = count + 1; })
                .find(fmt::format("p.json: field 'timeline.spans.data' holds fewer than its count "
                                  "of {} rows",
                                  count + 1)),
            std::string::npos);
  EXPECT_NE(error_after([&](nlohmann::json& j) {
              spans(j)["count"] = count - 1;
            }).find("holds more than its count"),
            std::string::npos);
  EXPECT_NE(error_after([&](nlohmann::json& j) { spans(j)["encoding"] = "packed-columns-9"; })
                .find("field 'timeline.spans.encoding' is 'packed-columns-9', not "
                      "'packed-columns-1'"),
            std::string::npos);
  EXPECT_NE(error_after([&](nlohmann::json& j) {
              std::string data = spans(j)["data"];
              data[data.size() / 2] = '!';
              spans(j)["data"] = data;
            }).find("field 'timeline.spans.data' is not base64"),
            std::string::npos);
  EXPECT_NE(error_after([&](nlohmann::json& j) {
              spans(j)["count"] = 1ULL << 40;
            }).find("field 'timeline.spans.count' is more spans than a timeline holds"),
            std::string::npos);
  EXPECT_NE(error_after([&](nlohmann::json& j) {
              j["timeline"]["attributes"]["keys"] = nlohmann::json::array();
            }).find("field 'timeline.attributes[0]' names key 0 of the 0 keys"),
            std::string::npos);
  EXPECT_NE(error_after([&](nlohmann::json& j) {
              j["timeline"]["attributes"]["count"] = 9;
            }).find("field 'timeline.attributes.data' holds fewer than its count of 9 rows"),
            std::string::npos);
  EXPECT_NE(error_after([&](nlohmann::json& j) {
              j["series"][2]["samples"]["count"] = 1;
            }).find("field 'series[2].samples.data' holds more than its count of 1 rows"),
            std::string::npos);
  EXPECT_NE(error_after([&](nlohmann::json& j) {
              j["series"][2]["samples"] = "x";
            }).find("field 'series[2].samples' is not an array"),
            std::string::npos);
}

// The packed columns go through the checks the arrays go through: an index out of range, a
// parent cycle.
TEST(ProfileJson, PackedSpansAreCheckedLikeArrays) {
  Profile p = sample_profile();
  Span own_parent = p.timeline.spans()[0];
  own_parent.parent = 1;
  p.timeline.add_span(own_parent);
  const std::string cycle = profile_to_json_string(p, -1, ProfileArrays::kPacked);
  // Span 1 is its own parent.
  const Result<Profile> r = profile_from_json_string(cycle, "p.json");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message().find("'timeline.spans[1]' is its own ancestor"), std::string::npos)
      << r.error().message();

  Profile q = sample_profile();
  q.timeline.spans()[0].name = 7;  // no such name
  const Result<Profile> bad_name =
      profile_from_json_string(profile_to_json_string(q, -1, ProfileArrays::kPacked), "p.json");
  ASSERT_FALSE(bad_name.ok());
  EXPECT_NE(bad_name.error().message().find("'timeline.spans[0]' refers to a track, name"),
            std::string::npos)
      << bad_name.error().message();
}

}  // namespace
}  // namespace jouleprof

namespace jouleprof {
namespace {

TEST(ProfileJson, IntervalsRoundTripAndSchemaTwoProfilesReadWithoutThem) {
  Profile p = sample_profile();
  p.channels[0].uncertainty = {{UncertaintyTerm::kGain, 0.625, 0.0, 0.0},
                               {UncertaintyTerm::kGaps, 0.0, 0.1, 0.4}};
  p.channels[0].band = combine_uncertainty(12.5, p.channels[0].uncertainty);
  p.tree->band = EnergyBand{11.0, 14.0, UncertaintyTerm::kGain};
  p.tree->children[0].band = EnergyBand{8.5, 11.5, UncertaintyTerm::kSplit};
  const std::string text = profile_to_json_string(p);
  const Result<Profile> back = profile_from_json_string(text, "memory");
  ASSERT_TRUE(back) << back.error().message();
  EXPECT_EQ(profile_to_json_string(*back), text);
  ASSERT_TRUE(back->channels[0].band.has_value());
  EXPECT_DOUBLE_EQ(back->channels[0].band->high_j, p.channels[0].band->high_j);
  EXPECT_EQ(back->channels[0].uncertainty.size(), 2u);
  EXPECT_EQ(back->tree->children[0].band->dominant, UncertaintyTerm::kSplit);
  EXPECT_FALSE(back->channels[1].band.has_value());

  // What a schema 2 writer wrote: no interval keys.
  nlohmann::json old = nlohmann::json::parse(text);
  old["schema_version"] = 2;
  for (auto& c : old["channels"]) {
    for (const char* key : {"energy_j_low", "energy_j_high", "uncertainty_dominant", "uncertainty"})
      c.erase(key);
  }
  std::vector<nlohmann::json*> nodes{&old["tree"]};
  while (!nodes.empty()) {
    nlohmann::json* n = nodes.back();
    nodes.pop_back();
    for (const char* key : {"energy_j_low", "energy_j_high", "uncertainty_dominant"}) n->erase(key);
    for (auto& child : (*n)["children"]) nodes.push_back(&child);
  }
  const Result<Profile> v2 = profile_from_json_string(old.dump(), "v2");
  ASSERT_TRUE(v2) << v2.error().message();
  EXPECT_FALSE(v2->channels[0].band.has_value());
  EXPECT_FALSE(v2->tree->band.has_value());
  EXPECT_FALSE(v2->total_energy_band().has_value());
}

TEST(ProfileJson, AnIntervalThatDoesNotHoldItsFigureIsRefused) {
  Profile p = sample_profile();
  p.tree->children[0].band = EnergyBand{8.5, 11.5, UncertaintyTerm::kSplit};
  nlohmann::json j = nlohmann::json::parse(profile_to_json_string(p));
  j["tree"]["children"][0]["energy_j_high"] = 9.0;
  const Result<Profile> back = profile_from_json_string(j.dump(), "p.json");
  ASSERT_FALSE(back);
  EXPECT_NE(back.error().message().find("tree[run].children[gemm]"), std::string::npos)
      << back.error().message();
  EXPECT_NE(back.error().message().find("does not contain its energy_j 10"), std::string::npos)
      << back.error().message();
  j["tree"]["children"][0].erase("energy_j_high");
  EXPECT_FALSE(profile_from_json_string(j.dump(), "p.json"));
}

TEST(ProfileJson, TheTotalIntervalAddsTheTopLevelChannelsAsIndependentDevices) {
  Profile p = sample_profile();
  EXPECT_FALSE(p.total_energy_band().has_value());  // a channel without one: no interval
  p.channels[0].band = EnergyBand{12.5 - 0.3, 12.5 + 0.4, UncertaintyTerm::kGain};
  const std::optional<EnergyBand> one = p.total_energy_band();
  ASSERT_TRUE(one.has_value());  // the nested core channel does not count
  EXPECT_DOUBLE_EQ(one->low_j, 12.2);
  EXPECT_DOUBLE_EQ(one->high_j, 12.9);
}

}  // namespace
}  // namespace jouleprof

namespace jouleprof {
namespace {

// Schema 5: the energy per step and per epoch (a mean, its interval and the repetitions' stats)
// and each epoch's interval survive a round trip; a schema 4 file, without them, reads with none.
TEST(ProfileJson, RepeatedEnergiesRoundTripAndSchemaFourProfilesReadWithoutThem) {
  Profile p = sample_profile();
  p.energy_per_step = RepeatedEnergy{RepetitionStats{8, 0.25, 0.24, 0.03, 0.225, 0.275},
                                     EnergyBand{0.2, 0.3, UncertaintyTerm::kRepetition}};
  p.energy_per_epoch = RepeatedEnergy{RepetitionStats{3, 3.5, 3.4, 0.2, 3.0, 4.0},
                                      EnergyBand{2.9, 4.1, UncertaintyTerm::kGain}};
  p.epochs[0].band = EnergyBand{3.3, 3.8, UncertaintyTerm::kGaps};
  const std::string text = profile_to_json_string(p);
  const Result<Profile> back = profile_from_json_string(text, "memory");
  ASSERT_TRUE(back) << back.error().message();
  EXPECT_EQ(profile_to_json_string(*back), text);
  ASSERT_TRUE(back->energy_per_step.has_value());
  EXPECT_EQ(back->energy_per_step->stats.n, 8u);
  EXPECT_DOUBLE_EQ(back->energy_per_step->band.high_j, 0.3);
  EXPECT_EQ(back->energy_per_step->band.dominant, UncertaintyTerm::kRepetition);
  ASSERT_TRUE(back->energy_per_epoch.has_value());
  EXPECT_DOUBLE_EQ(back->energy_per_epoch->stats.ci95_low, 3.0);
  ASSERT_TRUE(back->epochs[0].band.has_value());
  EXPECT_EQ(back->epochs[0].band->dominant, UncertaintyTerm::kGaps);

  nlohmann::json old = nlohmann::json::parse(text);
  old["schema_version"] = 4;
  old.erase("energy_per_step");
  old.erase("energy_per_epoch");
  for (const char* key : {"energy_j_low", "energy_j_high", "uncertainty_dominant"})
    old["epochs"][0].erase(key);
  const Result<Profile> v4 = profile_from_json_string(old.dump(), "v4");
  ASSERT_TRUE(v4) << v4.error().message();
  EXPECT_FALSE(v4->energy_per_step.has_value());
  EXPECT_FALSE(v4->energy_per_epoch.has_value());
  EXPECT_FALSE(v4->epochs[0].band.has_value());
}

TEST(ProfileJson, AnEnergyPerStepWhoseFigureIsNotItsMeanIsRefused) {
  Profile p = sample_profile();
  p.energy_per_step = RepeatedEnergy{RepetitionStats{8, 0.25, 0.24, 0.03, 0.225, 0.275},
                                     EnergyBand{0.2, 0.3, UncertaintyTerm::kRepetition}};
  nlohmann::json j = nlohmann::json::parse(profile_to_json_string(p));
  j["energy_per_step"]["energy_j"] = 0.5;
  Result<Profile> back = profile_from_json_string(j.dump(), "p.json");
  ASSERT_FALSE(back);
  EXPECT_NE(back.error().message().find("energy_per_step.energy_j"), std::string::npos)
      << back.error().message();
  j["energy_per_step"]["energy_j"] = 0.25;
  j["energy_per_step"].erase("energy_j_low");
  back = profile_from_json_string(j.dump(), "p.json");
  ASSERT_FALSE(back);
  EXPECT_NE(back.error().message().find("energy_per_step"), std::string::npos)
      << back.error().message();
}

}  // namespace
}  // namespace jouleprof
