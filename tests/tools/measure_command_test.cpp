// `jouleprof measure` end to end: a gated command on the simulated source, FECoM's records, and
// the errors a user meets.
#include <gtest/gtest.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <string>

#include "jouleprof_runner.hpp"

namespace jouleprof::testing {
namespace {

TEST(MeasureCommand, GatedCommandOnASimulatedSource) {
  TempDir dir;
  const Invocation inv = run_jouleprof({"measure",
                                        "--simulate",
                                        "40",
                                        "--repeat",
                                        "2",
                                        "--interval",
                                        "50",
                                        "--last-n",
                                        "5",
                                        "--check-period",
                                        "0.3",
                                        "--tail-wait",
                                        "0.5",
                                        "--min-updates",
                                        "50",
                                        "--format",
                                        "json",
                                        "--output",
                                        (dir.path() / "out").string(),
                                        "--",
                                        "sleep",
                                        "0.1"},
                                       dir);
  ASSERT_EQ(inv.exit_code, 0) << inv.err;
  const auto result = nlohmann::json::parse(inv.out);
  ASSERT_EQ(result["repetitions"].size(), 2u);
  const auto& first = result["repetitions"][0];
  EXPECT_TRUE(first["gate"]["passed"].get<bool>());
  // The call repeats until the window spans 50 counter updates (~0.5 s): however long a loaded
  // machine makes each call (at least its 0.1 s), the window reaches that length, and the calls
  // before the last one had not.
  const double window_ns = first["window_ns"].get<double>();
  const double min_window_ns = result["min_window_ns"].get<double>();
  const int calls = first["calls"].get<int>();
  EXPECT_GE(window_ns, min_window_ns);
  EXPECT_LT((calls - 1) * 0.1e9, min_window_ns) << calls << " calls";
  const auto& channel = first["per_call"][0];
  EXPECT_EQ(channel["provenance"], "simulated");
  // A constant 40 W: each call draws 40 W × its duration (≥ 0.1 s, plus starting the process)
  // and nothing above the baseline.
  const double call_s = window_ns * 1e-9 / calls;
  EXPECT_GE(call_s, 0.1);
  EXPECT_NEAR(channel["total_j"].get<double>(), 40.0 * call_s, 0.02 * 40.0 * call_s);
  EXPECT_NEAR(channel["net_j"].get<double>(), 0.0, 0.2);
  EXPECT_TRUE(std::filesystem::exists(dir.path() / "out" / "profile.json"));
}

TEST(MeasureCommand, GateTimeoutIsReportedAndKeepsNothingSilently) {
  TempDir dir;
  // 20 W for 50 ms, then 80 W for 150 ms, over and over: every 250 ms window of 50 ms intervals
  // holds a whole low segment, so its CV is at least 24 % wherever the check falls and the 3 %
  // gate never passes. (An even 50/50 ms square wave would not do: a window that starts half way
  // into a segment sees 50 W in every interval and passes, and where the gate's check falls
  // depends on how the machine schedules it.)
  const Invocation inv = run_jouleprof(
      {"measure", "--set", "simulate.profile=20:0.05;80:0.15", "--set", "simulate.repeat=1",
       "--source", "simulated", "--interval", "50", "--last-n", "5", "--check-period", "0.2",
       "--gate-timeout", "0.6", "--tail-wait", "0.1", "--", "true"},
      dir);
  EXPECT_EQ(inv.exit_code, 1) << inv.out << inv.err;
  EXPECT_NE(inv.out.find("INCOMPLETE"), std::string::npos) << inv.out << inv.err;
  EXPECT_NE(inv.out.find("unstable"), std::string::npos) << inv.out;
}

#ifdef JOULEPROF_TEST_TORCH
// Reads a duration as jouleprof prints it ("250 ms", "4.20 s", "13.0 s", "2 min 05 s").
double duration_s(const std::string& text) {
  const std::size_t minutes = text.find(" min ");
  if (minutes != std::string::npos) {
    return 60.0 * std::stod(text.substr(0, minutes)) + duration_s(text.substr(minutes + 5));
  }
  if (text.ends_with(" ms")) return std::stod(text) * 1e-3;
  if (text.ends_with(" s")) return std::stod(text);
  ADD_FAILURE() << "not a duration: " << text;
  return 0.0;
}

TEST(MeasureCommand, QuickOpSizesSayUpFrontHowLongTheyTakeAndKeepTheirWord) {
  TempDir dir;
  const std::string csv = (dir.path() / "sizes.csv").string();
  const auto began = std::chrono::steady_clock::now();
  const Invocation inv = run_jouleprof({"measure", "--op", "matmul", "--sizes", "32,64", "--quick",
                                        "--simulate", "40", "--output", csv},
                                       dir);
  const double took_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
  ASSERT_EQ(inv.exit_code, 0) << inv.out << inv.err;
  // The estimate is the first thing said: "measure matmul: 2 sizes × 3 repetitions × ≥ … ≈ T
  // (preset quick); --fecom-defaults takes ≈ …".
  const std::string first = inv.err.substr(0, inv.err.find('\n'));
  ASSERT_EQ(first.rfind("measure matmul: 2 sizes × 3 repetitions × ≥ ", 0), 0u) << inv.err;
  const std::size_t at = first.find(" ≈ ");
  const std::size_t preset = first.find(" (preset quick)");
  ASSERT_NE(at, std::string::npos) << first;
  ASSERT_NE(preset, std::string::npos) << first;
  const double estimate_s = duration_s(first.substr(at + 4, preset - at - 4));
  ASSERT_GT(estimate_s, 0.0);
  // Within a factor of 2 of the real duration (which includes starting jouleprof and libtorch).
  EXPECT_GT(took_s / estimate_s, 0.5) << first << "; took " << took_s << " s";
  EXPECT_LT(took_s / estimate_s, 2.0) << first << "; took " << took_s << " s";
  EXPECT_NE(first.find("--fecom-defaults takes ≈ "), std::string::npos) << first;

  const std::string rows = read_file(csv);
  EXPECT_NE(rows.find(",preset\n"), std::string::npos) << rows;
  EXPECT_NE(rows.find("matmul,64,"), std::string::npos) << rows;
  EXPECT_NE(rows.find(",\"quick\"\n"), std::string::npos) << "the preset is recorded: " << rows;
}

TEST(MeasureCommand, OpSizesWhoseGateNeverSettlesFailAndSayWhatIsMissing) {
  TempDir dir;
  const std::string csv = (dir.path() / "sizes.csv").string();
  const Invocation inv = run_jouleprof({"measure",
                                        "--op",
                                        "matmul",
                                        "--sizes",
                                        "8,16",
                                        "--source",
                                        "simulated",
                                        "--set",
                                        "simulate.profile=5:0.05;95:0.05",
                                        "--cpu-max-cv",
                                        "0",
                                        "--gpu-max-cv",
                                        "0",
                                        "--dram-max-cv",
                                        "0",
                                        "--gate-timeout",
                                        "0.5",
                                        "--check-period",
                                        "0.2",
                                        "--interval",
                                        "50",
                                        "-q",
                                        "--no-history",
                                        "--output",
                                        csv},
                                       dir);
  EXPECT_EQ(inv.exit_code, 1) << inv.out << inv.err;
  EXPECT_EQ(
      inv.err.rfind("jouleprof: matmul size 8: repetitions 1 to 5 not measured: the stability "
                    "gate gave up",
                    0),
      0u)
      << inv.err;
  EXPECT_NE(inv.err.find("jouleprof: matmul size 16: "), std::string::npos) << inv.err;
  const std::string rows = read_file(csv);
  EXPECT_EQ(rows.find("matmul,8,"), std::string::npos) << "nothing was measured: " << rows;
  EXPECT_NE(rows.find("# missing size 16: "), std::string::npos) << rows;
}
#endif

TEST(MeasureCommand, ThePresetIsRecordedInTheOutputAndTheProfile) {
  TempDir dir;
  const Invocation inv = run_jouleprof(
      {"measure", "--simulate", "40", "--quick", "--repeat", "1", "--quiet", "--no-history",
       "--format", "json", "--output", (dir.path() / "out").string(), "--", "true"},
      dir);
  ASSERT_EQ(inv.exit_code, 0) << inv.err;
  EXPECT_EQ(inv.err, "") << "--quiet: no estimate, no progress";
  const auto result = nlohmann::json::parse(inv.out);
  EXPECT_EQ(result["preset"], "quick (changed: --repeat)");
  const auto profile = nlohmann::json::parse(read_file(dir.path() / "out" / "profile.json"));
  EXPECT_NE(profile.dump().find("quick (changed: --repeat)"), std::string::npos);
}

TEST(MeasureCommand, FecomRecordsTable) {
  JP_REQUIRE_SHARED_DATA("fecom/method-level/keras/classification");
  TempDir dir;
  const Invocation inv = run_jouleprof(
      {"measure", "--fecom-records",
       (shared_data() / "fecom/method-level/keras/classification").string(), "--format", "json"},
      dir);
  ASSERT_EQ(inv.exit_code, 0) << inv.err;
  const auto result = nlohmann::json::parse(inv.out);
  EXPECT_EQ(result["experiments"], 10);
  EXPECT_GT(result["calls"].size(), 3u);
}

TEST(MeasureCommand, BadInputIsOneLine) {
  TempDir dir;
  const Invocation missing = run_jouleprof({"measure", "--fecom-records", "/nonexistent"}, dir);
  EXPECT_NE(missing.exit_code, 0);
  const Invocation failing =
      run_jouleprof({"measure", "--simulate", "40", "--check-period", "0.1", "--", "false"}, dir);
  EXPECT_EQ(failing.exit_code, 1);
  EXPECT_NE(failing.err.find("exited with code 1"), std::string::npos) << failing.err;
}

}  // namespace
}  // namespace jouleprof::testing
