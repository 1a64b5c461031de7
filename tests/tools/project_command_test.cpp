// jouleprof project end to end: the text table's unit, its epoch numbers and its messages for a
// plan STEP cannot project, from profiles like the ones `jouleprof run --epochs` writes.
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "jouleprof/profile.hpp"
#include "jouleprof_runner.hpp"

namespace jouleprof {
namespace {

using testing::run_jouleprof;

// A constant `watts` counter and `epochs` epochs of 1 s, each marked by epoch_begin and
// epoch_end, after 3 s of start-up: what `jouleprof run --epochs` writes.
std::string run_with_epochs(const testing::TempDir& dir, double watts, int epochs) {
  Profile p;
  p.meta.kind = "run";
  p.meta.begin_ns = kNsPerS;
  p.meta.end_ns = (5 + epochs) * kNsPerS;
  Channel c;
  c.id = "rapl:package-0";
  c.source = "rapl-powercap";
  c.device = "cpu0";
  c.kind = ChannelKind::kEnergyCounter;
  Series s(c);
  for (TimeNs t = kNsPerS; t <= p.meta.end_ns; t += 10 * kNsPerMs)
    EXPECT_TRUE(s.append(t, watts * ns_to_s(t - kNsPerS)).ok());
  p.series.push_back(std::move(s));
  const auto track = p.timeline.add_track(Track{TrackKind::kProcess, "job", ""});
  for (int e = 0; e < epochs; ++e) {
    const TimeNs begin = (4 + e) * kNsPerS;
    p.timeline.add_mark(Mark{begin, track, p.timeline.intern("epoch_begin")});
    p.timeline.add_mark(Mark{begin + kNsPerS, track, p.timeline.intern("epoch_end")});
  }
  const std::string path = (dir.path() / "run.json").string();
  EXPECT_TRUE(write_profile_json(p, path).ok());
  return path;
}

// The first line of `text` that starts with `start`; "" when none does.
std::string line_starting(const std::string& text, const std::string& start) {
  for (std::size_t at = 0; at < text.size();) {
    const std::size_t end = std::min(text.find('\n', at), text.size());
    if (text.compare(at, start.size(), start) == 0) return text.substr(at, end - at);
    at = end + 1;
  }
  return "";
}

TEST(ProjectCommand, AKilojouleRunPrintsKilojoules) {
  testing::TempDir dir;
  const std::string trace = run_with_epochs(dir, 205.0, 20);  // 4.10 kJ measured
  const auto text = run_jouleprof({"project", "--trace", trace, "--epochs", "40"}, dir);
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("measured over the trace window: 4.10 kJ\n"), std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("energy kJ"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("95 % band kJ"), std::string::npos) << text.out;
  EXPECT_EQ(text.out.find("MJ"), std::string::npos) << text.out;
  // STEP: 40 epochs of 205 J, in the measured figure's unit.
  EXPECT_NE(line_starting(text.out, "STEP ").find(" 8.20 "), std::string::npos) << text.out;

  const auto json =
      run_jouleprof({"project", "--trace", trace, "--epochs", "40", "--format", "json"}, dir);
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const auto doc = nlohmann::json::parse(json.out);
  EXPECT_NEAR(doc["measured_j"].get<double>(), 4100.0, 1e-6);
  EXPECT_TRUE(doc["warnings"].is_array());
  EXPECT_NEAR(doc["estimates"][0]["energy_j"].get<double>(), 8200.0, 1e-3);
}

TEST(ProjectCommand, EpochsAreNumberedFromOneAsRunNumbersThem) {
  testing::TempDir dir;
  const std::string trace = run_with_epochs(dir, 205.0, 20);
  const auto text = run_jouleprof({"project", "--trace", trace, "--epochs", "40"}, dir);
  ASSERT_EQ(text.exit_code, 0) << text.err;
  // s = 10, w = 5: epochs 1 … 10 summed, the window is epochs 11 … 15.
  EXPECT_NE(line_starting(text.out, "STEP power ").find("mean power of epochs 11…15 "),
            std::string::npos)
      << text.out;
  EXPECT_NE(line_starting(text.out, "first epoch E1 x N ").find("E_1 × N"), std::string::npos)
      << text.out;
  EXPECT_EQ(text.out.find("E0"), std::string::npos) << text.out;
  EXPECT_EQ(text.out.find("epoch 0"), std::string::npos) << text.out;

  const auto json =
      run_jouleprof({"project", "--trace", trace, "--epochs", "40", "--format", "json"}, dir);
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const auto doc = nlohmann::json::parse(json.out);
  EXPECT_NE(doc["estimates"][1]["detail"].get<std::string>().find("epochs 11…15 "),
            std::string::npos)
      << doc["estimates"][1]["detail"];

  // An epochs CSV numbered as the output numbers them.
  std::string rows = "epoch,end_s\n";
  for (int e = 1; e <= 20; ++e) rows += std::to_string(e) + "," + std::to_string(3 + e) + "\n";
  const std::string csv = dir.write("epochs.csv", rows).string();
  const auto from_csv =
      run_jouleprof({"project", "--trace", trace, "--epochs", "40", "--epochs-csv", csv}, dir);
  ASSERT_EQ(from_csv.exit_code, 0) << from_csv.err;
  EXPECT_NE(from_csv.out.find("epochs: 20 (epochs CSV: "), std::string::npos) << from_csv.out;
}

TEST(ProjectCommand, APlanShorterThanSPlusWSaysSTEPCannotProjectIt) {
  testing::TempDir dir;
  const std::string trace = run_with_epochs(dir, 205.0, 6);
  // 6 of 10 planned epochs are in the trace; STEP's s + w = 15 can never be reached.
  const auto text = run_jouleprof({"project", "--trace", trace, "--epochs", "10"}, dir);
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("the planned run of 10 epochs is shorter than STEP's s + w = 15, so "
                          "STEP cannot project it as set: using s = 1, w = 5 (the window: epochs "
                          "2…6, the last known after epoch 1); --s and --w with s + w ≤ 10 "
                          "choose the split"),
            std::string::npos)
      << text.out;
  EXPECT_EQ(text.out.find("epochs STEP needs"), std::string::npos) << text.out;
  EXPECT_EQ(text.out.find("projects once"), std::string::npos) << text.out;

  const auto json =
      run_jouleprof({"project", "--trace", trace, "--epochs", "10", "--format", "json"}, dir);
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_NE(json.out.find("--s and --w with s + w ≤ 10"), std::string::npos) << json.out;
  EXPECT_EQ(json.out.find("StepOptions"), std::string::npos) << json.out;

  // Within the plan, --s and --w that fit give STEP's own rule.
  const auto fitted =
      run_jouleprof({"project", "--trace", trace, "--epochs", "10", "--s", "2", "--w", "4"}, dir);
  ASSERT_EQ(fitted.exit_code, 0) << fitted.err;
  EXPECT_NE(line_starting(fitted.out, "STEP ").find("STEP s = 2, w = 4"), std::string::npos)
      << fitted.out;
}

}  // namespace
}  // namespace jouleprof
