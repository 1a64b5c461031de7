#include <fmt/format.h>
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>

#include "sources/power_log.hpp"
#include "test_support.hpp"

namespace jouleprof {
namespace {

using testing::shared_data;
using testing::TempDir;

// Independent sums of the Joules column per event name.
std::map<std::string, double> independent_totals(const std::filesystem::path& path) {
  std::map<std::string, double> totals;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> f;
    std::stringstream ss(line);
    for (std::string x; std::getline(ss, x, ';');) f.push_back(x);
    if (f.size() < 4) continue;
    totals[f[3]] += std::stod(f[1]);
  }
  return totals;
}

class FecomPerf : public ::testing::TestWithParam<const char*> {};

TEST_P(FecomPerf, CountersEndAtTheSummedIntervals) {
  const std::string relative = std::string("fecom/settings/") + GetParam() + "/out/perf.txt";
  JP_REQUIRE_SHARED_DATA(relative);
  const auto path = shared_data() / relative;
  const auto trace = read_perf_stat_log(path.string(), PowerLogOptions{});
  ASSERT_TRUE(trace) << trace.error().message();
  const auto totals = independent_totals(path);
  ASSERT_EQ(trace->series.size(), 2u);
  const Series& pkg = trace->series[0];
  const Series& ram = trace->series[1];
  EXPECT_EQ(pkg.channel().domain, "package");
  EXPECT_EQ(ram.channel().domain, "dram");
  EXPECT_EQ(pkg.channel().kind, ChannelKind::kEnergyCounter);
  EXPECT_NEAR(pkg.total_energy_j(), totals.at("power/energy-pkg/"),
              1e-9 * totals.at("power/energy-pkg/"));
  EXPECT_NEAR(ram.total_energy_j(), totals.at("power/energy-ram/"),
              1e-9 * totals.at("power/energy-ram/"));
  EXPECT_DOUBLE_EQ(pkg.front().value, 0.0);  // the counter starts at perf's start
  EXPECT_NE(pkg.channel().provenance_detail.find("start from the header"), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(Intervals, FecomPerf,
                         ::testing::Values("setting-10ms", "setting-100ms", "setting-500ms",
                                           "setting-1000ms"));

TEST(PerfStatLog, StartTimeComesFromTheHeaderAndTheLastIntervalIsPartial) {
  const char* relative = "fecom/settings/setting-500ms/out/perf.txt";
  JP_REQUIRE_SHARED_DATA(relative);
  const auto path = shared_data() / relative;
  const auto trace = read_perf_stat_log(path.string(), PowerLogOptions{});
  ASSERT_TRUE(trace) << trace.error().message();
  const Series& pkg = trace->series[0];
  // "# started on Thu Apr 25 16:00:52 2024", read as UTC.
  EXPECT_EQ(pkg.front().t_ns, TimeNs{1714060852} * kNsPerS);
  EXPECT_EQ(pkg.back().t_ns, TimeNs{1714060852} * kNsPerS + 140'772'534'635);
  EXPECT_NE(pkg.channel().provenance_detail.find("last interval partial (0.091 s"),
            std::string::npos)
      << pkg.channel().provenance_detail;
  EXPECT_EQ(pkg.channel().nominal_period_ns / kNsPerMs, 500);
}

TEST(PerfStatLog, TruncatedLastLineIsDroppedAndBadLinesNameTheirField) {
  TempDir dir;
  const std::string head =
      "# started on Thu Apr 25 16:00:52 2024\n\n"
      "     0.500530891;40.32;Joules;power/energy-pkg/;500572489;100.00;;\n"
      "     0.500530891;5.74;Joules;power/energy-ram/;500572080;100.00;;\n";
  auto path = dir.write("cut.txt", head + "     1.001171517;39.6");
  auto trace = read_perf_stat_log(path.string(), PowerLogOptions{});
  ASSERT_TRUE(trace) << trace.error().message();
  ASSERT_EQ(trace->warnings.size(), 1u);
  EXPECT_NE(trace->warnings[0].find(path.string() + ":5"), std::string::npos);
  EXPECT_DOUBLE_EQ(trace->series[0].total_energy_j(), 40.32);

  path = dir.write("bad.txt", head + "     1.0;many;Joules;power/energy-pkg/;1;100.00;;\n" +
                                  "     1.0;5.0;Joules;power/energy-ram/;1;100.00;;\n");
  trace = read_perf_stat_log(path.string(), PowerLogOptions{});
  ASSERT_FALSE(trace);
  EXPECT_NE(trace.error().message().find(path.string() + ":5"), std::string::npos);
  EXPECT_NE(trace.error().message().find("'value'"), std::string::npos);

  path = dir.write("far.txt", head + "     1e300;5.0;Joules;power/energy-pkg/;1;100.00;;\n" +
                                  "     1e300;5.0;Joules;power/energy-ram/;1;100.00;;\n");
  trace = read_perf_stat_log(path.string(), PowerLogOptions{});
  ASSERT_FALSE(trace);
  EXPECT_NE(trace.error().message().find(path.string() + ":5"), std::string::npos);
  EXPECT_NE(trace.error().message().find("'time'"), std::string::npos) << trace.error().message();

  // A day of 1e30 in the start line was converted to int (undefined behaviour).
  path = dir.write("day.txt", "# started on Thu Apr 1e30 16:00:52 2024\n\n" +
                                  head.substr(head.find("     0.5")));
  trace = read_perf_stat_log(path.string(), PowerLogOptions{});
  ASSERT_TRUE(trace) << trace.error().message();
  EXPECT_LT(trace->series[0].front().t_ns, kNsPerS);  // no start time: perf's own clock

  path = dir.write("nc.txt", head + "     1.0;<not counted>;Joules;power/energy-pkg/;0;0.00;;\n" +
                                 "     1.0;5.0;Joules;power/energy-ram/;1;100.00;;\n");
  trace = read_perf_stat_log(path.string(), PowerLogOptions{});
  ASSERT_TRUE(trace) << trace.error().message();
  EXPECT_FALSE(trace->warnings.empty());
  EXPECT_NE(trace->series[0].channel().provenance_detail.find("not counted"), std::string::npos);
}

// Found by fuzz/perf_stat_log_fuzz.cpp: a median interval of 2.1e18 ns overflowed when the last
// interval was compared with nine tenths of it (median × 9 / 10).
TEST(PerfStatLog, IntervalsNearTheEndOfTimeAreComparedWithoutOverflow) {
  TempDir dir;
  const auto path = dir.write("far.txt",
                              "# started on Thu Apr 25 15:38:34 2024\n\n"
                              "     2100119775.0;8.05;Joules;power/energy-pkg/;1;100.00;;\n"
                              "     2100119775.5;8.05;Joules;power/energy-pkg/;1;100.00;;\n");
  const auto trace = read_perf_stat_log(path.string(), PowerLogOptions{});
  ASSERT_TRUE(trace) << trace.error().message();
  ASSERT_EQ(trace->series.size(), 1u);
  // The half-second last interval is partial beside the 2.1e9 s first one.
  EXPECT_NE(trace->series[0].channel().provenance_detail.find("last interval partial (0.500 s"),
            std::string::npos)
      << trace->series[0].channel().provenance_detail;
}

TEST(PerfStatLog, AutoDetectionPicksTheReader) {
  const char* relative = "fecom/settings/setting-100ms/out/perf.txt";
  JP_REQUIRE_SHARED_DATA(relative);
  const auto trace = read_power_log((shared_data() / relative).string(), PowerLogFormat::kAuto, {});
  ASSERT_TRUE(trace) << trace.error().message();
  EXPECT_EQ(trace->format, "perf-stat");
}

TEST(PerfStatLog, ReadingStopsAtTheFirstBadLineAndSaysWhereItStarts) {
  TempDir dir;
  const std::string good =
      "# started on Mon Jul 22 10:00:00 2024\n\n1.0;5.0;Joules;power/energy-pkg/;\n";
  const auto path = dir.write("p.txt", good + "2.0;x;Joules;power/energy-pkg/;\ngarbage\n");
  const auto trace = read_perf_stat_log(path.string(), PowerLogOptions{});
  ASSERT_FALSE(trace.ok());
  EXPECT_NE(trace.error().message().find(path.string() + ":4: field 'value' has value 'x'"),
            std::string::npos)
      << trace.error().message();
  EXPECT_TRUE(
      trace.error().message().ends_with(fmt::format("(line 4 starts at byte {})", good.size())))
      << trace.error().message();
}

}  // namespace
}  // namespace jouleprof
