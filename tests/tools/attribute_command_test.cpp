// `jouleprof attribute` end to end: clocks that cannot fail silently, samples written by hand.
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "jouleprof/clock.hpp"
#include "tools/jouleprof_runner.hpp"

namespace jouleprof {
namespace {

using ::jouleprof::testing::fixtures;
using ::jouleprof::testing::Invocation;
using ::jouleprof::testing::run_jouleprof;
using ::jouleprof::testing::TempDir;

// A hand-written samples.csv: a 10 W counter from t0 to t0 + 1 s, read every 10 ms, no device.
std::string ten_watt_samples(TimeNs t0_ns, const std::string& channel = "meter") {
  std::string csv = "t_ns,channel,kind,value\n";
  for (int i = 0; i <= 100; ++i) {
    csv += std::to_string(t0_ns + i * 10 * kNsPerMs) + "," + channel + ",energy_j," +
           std::to_string(0.1 * i) + "\n";
  }
  return csv;
}

// torch's legacy profiler export (a bare array, times in µs since its start): one forward op.
std::string legacy_trace(const std::string& extra_events = "") {
  return R"([{"name": "aten::addmm", "ph": "X", "ts": 100, "dur": 400000, "tid": 1,
              "pid": "CPU functions", "args": {}}, )" +
         extra_events +
         R"({"name": "aten::relu", "ph": "X", "ts": 500000, "dur": 300000, "tid": 1,
              "pid": "CPU functions", "args": {}}])";
}

// The same with jouleprof's clock reference: monotonic 1.0001 s at the trace's 100 µs, so the
// ops lie inside the samples' second (ten_watt_samples(kNsPerS)).
std::string synced_legacy_trace() {
  return legacy_trace(R"({"name": "jouleprof::clock_sync 1000100000", "ph": "X", "ts": 100,
                          "dur": 0, "tid": 1, "pid": "CPU functions", "args": {}}, )");
}

TEST(AttributeCommand, ATraceOutsideTheSamplesFailsWithBothWindowsInWallClockTime) {
  TempDir dir;
  // The Kineto fixture is on the realtime clock of 2026; these samples are one second after boot.
  const auto samples = dir.write("samples.csv", ten_watt_samples(kNsPerS));
  const Invocation inv =
      run_jouleprof({"attribute", "--trace", (fixtures() / "timeline/kineto_small.json").string(),
                     "--samples", samples.string()},
                    dir);
  EXPECT_EQ(inv.exit_code, 1) << inv.out << inv.err;
  EXPECT_NE(inv.err.find("only 0.0 % of the spans' time lies inside the samples' window"),
            std::string::npos)
      << inv.err;
  EXPECT_NE(inv.err.find("spans 2026-"), std::string::npos) << inv.err;
  EXPECT_NE(inv.err.find("UTC"), std::string::npos) << inv.err;
  EXPECT_NE(inv.err.find("jouleprof.torch.profile"), std::string::npos) << inv.err;
  EXPECT_NE(inv.err.find("--offset-ns"), std::string::npos) << inv.err;
  EXPECT_EQ(inv.out.find("[unattributed]"), std::string::npos) << "no tree is printed";
}

TEST(AttributeCommand, ALegacyTraceWithoutAClockReferenceFails) {
  TempDir dir;
  const auto trace = dir.write("trace.json", legacy_trace());
  const auto samples = dir.write("samples.csv", ten_watt_samples(kNsPerS));
  const Invocation inv =
      run_jouleprof({"attribute", "--trace", trace.string(), "--samples", samples.string()}, dir);
  EXPECT_EQ(inv.exit_code, 1) << inv.out << inv.err;
  EXPECT_NE(inv.err.find("the trace's times have no known clock"), std::string::npos) << inv.err;
  EXPECT_NE(inv.err.find("clock_sync"), std::string::npos) << inv.err;
}

TEST(AttributeCommand, AClockSyncScopeMapsALegacyTraceAndDeviceLessSamplesReachEveryTrack) {
  TempDir dir;
  const auto trace = dir.write("trace.json", synced_legacy_trace());
  const auto samples = dir.write("samples.csv", ten_watt_samples(kNsPerS));
  const Invocation inv = run_jouleprof(
      {"attribute", "--trace", trace.string(), "--samples", samples.string(), "--format", "table"},
      dir);
  ASSERT_EQ(inv.exit_code, 0) << inv.out << inv.err;
  EXPECT_NE(inv.out.find("jouleprof::clock_sync scope"), std::string::npos) << inv.out;
  EXPECT_NE(inv.out.find("channel meter names no device, so every track of the timeline consumes"),
            std::string::npos)
      << inv.out;
  EXPECT_NE(inv.out.find("% of parent"), std::string::npos) << inv.out;
  // 10 W: 4 J over addmm's 0.4 s, 3 J over relu's 0.3 s.
  const Invocation json = run_jouleprof(
      {"attribute", "--trace", trace.string(), "--samples", samples.string(), "--format", "json"},
      dir);
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const nlohmann::json profile = nlohmann::json::parse(json.out);
  std::map<std::string, double> energy;
  for (const auto& node : profile.at("tree").at("children"))
    energy[node.at("name").get<std::string>()] = node.at("energy_j").get<double>();
  EXPECT_NEAR(energy["aten::addmm"], 4.0, 1e-6);
  EXPECT_NEAR(energy["aten::relu"], 3.0, 1e-6);
}

TEST(AttributeCommand, ChannelDeviceMovesAChannelAndAnAllZeroTreeIsAnError) {
  TempDir dir;
  const auto trace = dir.write("trace.json", synced_legacy_trace());
  const auto samples = dir.write("samples.csv", ten_watt_samples(kNsPerS));
  // On gpu0 the CPU thread's track no longer consumes the meter: every joule would be
  // [unattributed], and that is not a result.
  const Invocation inv = run_jouleprof({"attribute", "--trace", trace.string(), "--samples",
                                        samples.string(), "--channel-device", "meter=gpu0"},
                                       dir);
  EXPECT_EQ(inv.exit_code, 1) << inv.out << inv.err;
  EXPECT_NE(inv.err.find("no span received any of the"), std::string::npos) << inv.err;
  EXPECT_NE(inv.err.find("'cpu0'"), std::string::npos) << inv.err;
  EXPECT_NE(inv.err.find("'gpu0'"), std::string::npos) << inv.err;
  const Invocation bad = run_jouleprof({"attribute", "--trace", trace.string(), "--samples",
                                        samples.string(), "--channel-device", "nosuch=gpu0"},
                                       dir);
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.err.find("is not a channel of the samples (meter)"), std::string::npos) << bad.err;
}

// The real H200 trace: 190 208 kernels whose CUDA names run to 400 characters
// ("void at::native::reduce_kernel<128, 4, at::native::ReduceOp<float, …>>(…)"). Piped, the
// text view fits 100 columns; the JSON keeps the whole names.
TEST(AttributeCommand, TheH200TraceFitsInAHundredColumnsWithTheNamesShortened) {
  JP_REQUIRE_SHARED_DATA("h200/bert_fold.json.gz");
  const auto h200 = testing::shared_data() / "h200";
  TempDir dir;
  const Invocation inv =
      run_jouleprof({"attribute", "--trace", (h200 / "bert_fold.json.gz").string(), "--samples",
                     (h200 / "nvml_fast.csv").string(), "--meta",
                     (h200 / "meta_fold.json").string(), "--output", (dir.path() / "out").string()},
                    dir);
  ASSERT_EQ(inv.exit_code, 0) << inv.out << inv.err;
  std::size_t lines = 0;
  std::size_t begin = 0;
  for (std::size_t end = inv.out.find('\n'); end != std::string::npos;
       begin = end + 1, end = inv.out.find('\n', begin), ++lines) {
    std::size_t columns = 0;  // code points: the tree's guides and "µ" are one column each
    for (std::size_t i = begin; i < end; ++i)
      columns += (static_cast<unsigned char>(inv.out[i]) & 0xC0) != 0x80;
    EXPECT_LE(columns, 100u) << inv.out.substr(begin, end - begin);
  }
  EXPECT_LE(lines, 120u) << inv.out;
  EXPECT_EQ(inv.out.find("void "), std::string::npos) << inv.out;
  EXPECT_NE(inv.out.find("<…>"), std::string::npos) << inv.out;
  const std::string json = testing::read_file((dir.path() / "out" / "profile.json").string());
  EXPECT_NE(json.find("void at::native::"), std::string::npos);
}

}  // namespace
}  // namespace jouleprof
