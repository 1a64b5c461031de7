#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <ctime>
#include <fstream>
#include <sstream>

#include "jouleprof/device_names.hpp"
#include "sources/power_log.hpp"
#include "test_support.hpp"

namespace jouleprof {
namespace {

using testing::shared_data;
using testing::TempDir;

// An independent reading of a log: the power column by position, split on commas, the " W"
// cut off with strtod, stamps by sscanf + timegm, energy by the trapezoid rule.
struct IndependentLog {
  std::size_t samples = 0;
  double energy_j = 0.0;
  double first_power_w = 0.0;
};

IndependentLog independent_parse(const std::filesystem::path& path, int power_field,
                                 int field_count, bool has_header) {
  std::ifstream in(path);
  std::string line;
  if (has_header) std::getline(in, line);
  IndependentLog out;
  double previous_t = 0.0, previous_p = 0.0;
  while (std::getline(in, line)) {
    std::vector<std::string> fields;
    std::stringstream ss(line);
    for (std::string f; std::getline(ss, f, ',');) fields.push_back(f);
    if (static_cast<int>(fields.size()) != field_count) continue;  // the truncated line
    char* end = nullptr;
    const double p = std::strtod(fields[static_cast<std::size_t>(power_field)].c_str(), &end);
    if (end == fields[static_cast<std::size_t>(power_field)].c_str() ||
        std::string(end).find('W') == std::string::npos)
      continue;
    std::tm tm{};
    double sec = 0.0;
    char sep = 0;
    std::sscanf(fields[0].c_str(), "%d%c%d%c%d %d:%d:%lf", &tm.tm_year, &sep, &tm.tm_mon, &sep,
                &tm.tm_mday, &tm.tm_hour, &tm.tm_min, &sec);
    tm.tm_year -= 1900;
    tm.tm_mon -= 1;
    const double t = static_cast<double>(timegm(&tm)) + sec;
    if (out.samples == 0) out.first_power_w = p;
    if (out.samples > 0) out.energy_j += 0.5 * (p + previous_p) * (t - previous_t);
    previous_t = t;
    previous_p = p;
    ++out.samples;
  }
  return out;
}

class FecomNvidiaSmi : public ::testing::TestWithParam<const char*> {};

TEST_P(FecomNvidiaSmi, TotalsMatchAnIndependentParse) {
  const std::string relative = std::string("fecom/settings/") + GetParam() + "/out/nvidia_smi.txt";
  JP_REQUIRE_SHARED_DATA(relative);
  const auto path = shared_data() / relative;
  const auto trace = read_nvidia_smi_log(path.string(), PowerLogOptions{});
  ASSERT_TRUE(trace) << trace.error().message();
  const Series* power = trace->find(ChannelKind::kPower);
  ASSERT_NE(power, nullptr);
  const IndependentLog expected = independent_parse(path, 1, 3, false);
  EXPECT_EQ(power->size(), expected.samples);
  EXPECT_NEAR(power->total_energy_j(), expected.energy_j, 1e-6 * expected.energy_j);
  EXPECT_EQ(power->channel().provenance, Provenance::kImported);
  EXPECT_NE(power->channel().provenance_detail.find(path.string()), std::string::npos);
  EXPECT_NE(power->channel().provenance_detail.find("no header"), std::string::npos);
  ASSERT_NE(trace->find(ChannelKind::kTemperature), nullptr);
}

INSTANTIATE_TEST_SUITE_P(Intervals, FecomNvidiaSmi,
                         ::testing::Values("setting-10ms", "setting-100ms", "setting-500ms",
                                           "setting-1000ms"));

TEST(NvidiaSmiLog, Seaa2023LogWithUnitSuffixesAndItsOwnHeader) {
  const char* relative = "seaa2023/traces/cloud/mobilenet_v2/gpu-power-20221205T104713.csv";
  JP_REQUIRE_SHARED_DATA(relative);
  const auto path = shared_data() / relative;
  const auto trace = read_nvidia_smi_log(path.string(), PowerLogOptions{});
  ASSERT_TRUE(trace) << trace.error().message();
  const Series* power = trace->find(ChannelKind::kPower);
  ASSERT_NE(power, nullptr);
  const IndependentLog expected = independent_parse(path, 6, 9, true);
  EXPECT_EQ(power->size(), expected.samples);
  EXPECT_DOUBLE_EQ(power->front().value, 10.43);
  EXPECT_NEAR(power->total_energy_j(), expected.energy_j, 1e-6 * expected.energy_j);
  const Series* util = trace->find(ChannelKind::kUtilisation);
  ASSERT_NE(util, nullptr);
  EXPECT_DOUBLE_EQ(util->front().value, 0.0);
  // The device is the match key a GPU track names; the product is its label (a device of
  // "gpu0 NVIDIA GeForce RTX 3090" once matched no track).
  EXPECT_EQ(power->channel().device, "gpu0");
  EXPECT_NE(power->channel().label.find("RTX 3090"), std::string::npos);
  EXPECT_TRUE(device_selects(power->channel().device, "gpu0"));
  EXPECT_TRUE(trace->warnings.empty());
}

TEST(NvidiaSmiLog, Seaa2023TruncatedLastLineIsDroppedWithAWarning) {
  // nvidia-smi's own header variant; the logger was killed mid-line.
  const char* relative = "seaa2023/traces/cloud/resnet50/gpu-power-20230308T162450.csv";
  JP_REQUIRE_SHARED_DATA(relative);
  const auto path = shared_data() / relative;
  const auto trace = read_nvidia_smi_log(path.string(), PowerLogOptions{});
  ASSERT_TRUE(trace) << trace.error().message();
  const Series* power = trace->find(ChannelKind::kPower);
  ASSERT_NE(power, nullptr);
  const IndependentLog expected = independent_parse(path, 6, 9, true);
  EXPECT_EQ(power->size(), expected.samples);
  EXPECT_NEAR(power->total_energy_j(), expected.energy_j, 1e-6 * expected.energy_j);
  ASSERT_EQ(trace->warnings.size(), 1u);
  EXPECT_NE(trace->warnings[0].find("truncated"), std::string::npos);
  EXPECT_NE(trace->warnings[0].find(path.string() + ":"), std::string::npos);
}

TEST(NvidiaSmiLog, EveryPublishedSeaa2023LogReads) {
  JP_REQUIRE_SHARED_DATA("seaa2023/traces");
  std::size_t logs = 0;
  for (const auto& entry :
       std::filesystem::recursive_directory_iterator(shared_data() / "seaa2023/traces")) {
    if (entry.path().filename().string().rfind("gpu-power-", 0) != 0) continue;
    const auto trace = read_nvidia_smi_log(entry.path().string(), PowerLogOptions{});
    ASSERT_TRUE(trace) << trace.error().message();
    EXPECT_GT(trace->find(ChannelKind::kPower)->size(), 100u) << entry.path();
    ++logs;
  }
  EXPECT_EQ(logs, 80u);
}

TEST(NvidiaSmiLog, WallClockStampsMapThroughTheOffset) {
  EXPECT_EQ(parse_wall_clock_ns("2023/05/10 12:34:56.789", 0),
            TimeNs{1683722096} * kNsPerS + 789 * kNsPerMs);
  EXPECT_EQ(parse_wall_clock_ns("2023-05-10T12:34:56.789", 3600),
            TimeNs{1683722096 - 3600} * kNsPerS + 789 * kNsPerMs);
  EXPECT_FALSE(parse_wall_clock_ns("2023/13/10 12:34:56", 0));
  EXPECT_FALSE(parse_wall_clock_ns("12:34:56", 0));
  // Found by fuzz/nvidia_smi_log_fuzz.cpp and perf_stat_log_fuzz.cpp: a stamp in the year 1011
  // or 9999 overflowed int64 nanoseconds (undefined behaviour) instead of being refused.
  EXPECT_FALSE(parse_wall_clock_ns("1011/05/10 12:34:56", 0));
  EXPECT_FALSE(parse_wall_clock_ns("9999/12/31 23:59:59", 0));
  EXPECT_TRUE(parse_wall_clock_ns("2100/01/01 00:00:00", 0));

  TempDir dir;
  const auto path = dir.write("log.csv",
                              "2023/05/10 12:34:56.000, 100.00 W, 40\n"
                              "2023/05/10 12:34:57.000, 200.00 W, 41\n");
  PowerLogOptions options;
  options.offset_ns = -TimeNs{1683722096} * kNsPerS + 7;
  auto trace = read_nvidia_smi_log(path.string(), options);
  ASSERT_TRUE(trace) << trace.error().message();
  EXPECT_EQ(trace->find(ChannelKind::kPower)->front().t_ns, 7);
  EXPECT_EQ(trace->offset_ns, options.offset_ns);
  EXPECT_NE(trace->find(ChannelKind::kPower)->channel().provenance_detail.find("offset_ns="),
            std::string::npos);

  options.first_sample_at_ns = 5 * kNsPerS;
  trace = read_nvidia_smi_log(path.string(), options);
  ASSERT_TRUE(trace);
  EXPECT_EQ(trace->find(ChannelKind::kPower)->front().t_ns, 5 * kNsPerS);
  EXPECT_DOUBLE_EQ(trace->find(ChannelKind::kPower)->total_energy_j(), 150.0);
}

TEST(NvidiaSmiLog, BadMiddleLineNamesFileLineAndField) {
  TempDir dir;
  const auto path = dir.write("bad.csv",
                              "timestamp, power.draw [W]\n"
                              "2023/05/10 12:34:56.000, 100.00 W\n"
                              "2023/05/10 12:34:57.000, lots W\n"
                              "2023/05/10 12:34:58.000, 100.00 W\n");
  const auto trace = read_nvidia_smi_log(path.string(), PowerLogOptions{});
  ASSERT_FALSE(trace);
  EXPECT_NE(trace.error().message().find(path.string() + ":3"), std::string::npos);
  EXPECT_NE(trace.error().message().find("power.draw"), std::string::npos);
  EXPECT_NE(trace.error().message().find("lots W"), std::string::npos);
}

TEST(NvidiaSmiLog, UnavailableValuesDuplicatesAndGapsFollowTheirRules) {
  TempDir dir;
  const auto path = dir.write("odd.csv",
                              "timestamp, power.draw [W], utilization.gpu [%]\n"
                              "2023/05/10 12:00:00.000, 100.00 W, 50 %\n"
                              "2023/05/10 12:00:01.000, [N/A], 50 %\n"
                              "2023/05/10 12:00:02.000, 100.00 W, 50 %\n"
                              "2023/05/10 12:00:02.000, 120.00 W, 50 %\n"  // duplicate stamp
                              "2023/05/10 12:00:03.000, 110.00 W, 50 %\n"
                              "2023/05/10 12:01:03.000, 110.00 W, 50 %\n"  // 60 s gap
                              "2023/05/10 12:01:04.000, 110.00 W, 50 %\n");
  const auto trace = read_nvidia_smi_log(path.string(), PowerLogOptions{});
  ASSERT_TRUE(trace) << trace.error().message();
  const Series* power = trace->find(ChannelKind::kPower);
  ASSERT_EQ(power->size(), 5u);
  EXPECT_DOUBLE_EQ(power->value_at(power->front().t_ns + 2 * kNsPerS), 110.0);  // merged mean
  ASSERT_EQ(power->gaps().size(), 1u);
  // 0..2 s at 100→110 W (trapezoid), 2..3 s at 110 W, gap, 1 s at 110 W.
  EXPECT_DOUBLE_EQ(power->total_energy_j(), 2 * 105.0 + 110.0 + 110.0);
  EXPECT_NE(power->channel().provenance_detail.find("1 duplicate timestamps merged"),
            std::string::npos);
  EXPECT_EQ(trace->find(ChannelKind::kUtilisation)->front().value, 0.5);
  ASSERT_FALSE(trace->warnings.empty());
}

TEST(NvidiaSmiLog, OutOfOrderStampsAndEmptyFilesAreErrors) {
  TempDir dir;
  const auto backwards = dir.write("back.csv",
                                   "2023/05/10 12:00:02.000, 100.00 W, 40\n"
                                   "2023/05/10 12:00:01.000, 100.00 W, 40\n"
                                   "2023/05/10 12:00:03.000, 100.00 W, 40\n");
  auto trace = read_nvidia_smi_log(backwards.string(), PowerLogOptions{});
  ASSERT_FALSE(trace);
  EXPECT_NE(trace.error().message().find(backwards.string() + ":2"), std::string::npos);
  EXPECT_NE(trace.error().message().find("timestamp"), std::string::npos);

  const auto empty = dir.write("empty.csv", "");
  trace = read_nvidia_smi_log(empty.string(), PowerLogOptions{});
  ASSERT_FALSE(trace);
  EXPECT_NE(trace.error().message().find("empty"), std::string::npos);

  trace = read_nvidia_smi_log((dir.path() / "missing.csv").string(), PowerLogOptions{});
  ASSERT_FALSE(trace);
  EXPECT_EQ(trace.error().code(), ErrorCode::kNotFound);
}

TEST(NvidiaSmiLog, PerGpuSeriesWithAnIndexColumn) {
  TempDir dir;
  const auto path = dir.write("two.csv",
                              "timestamp, index, power.draw [W]\n"
                              "2023/05/10 12:00:00.000, 0, 100.00 W\n"
                              "2023/05/10 12:00:00.000, 1, 50.00 W\n"
                              "2023/05/10 12:00:01.000, 0, 100.00 W\n"
                              "2023/05/10 12:00:01.000, 1, 50.00 W\n");
  const auto trace = read_nvidia_smi_log(path.string(), PowerLogOptions{});
  ASSERT_TRUE(trace) << trace.error().message();
  ASSERT_EQ(trace->series.size(), 2u);
  EXPECT_EQ(trace->series[0].channel().id, "nvidia-smi:gpu0:power");
  EXPECT_DOUBLE_EQ(trace->series[0].total_energy_j(), 100.0);
  EXPECT_DOUBLE_EQ(trace->series[1].total_energy_j(), 50.0);
}

TEST(NvidiaSmiLog, ReadingStopsAtTheFirstBadLineAndSaysWhereItStarts) {
  TempDir dir;
  const std::string good = "timestamp, power.draw [W]\n2023/05/10 12:34:56.000, 100.00 W\n";
  const auto path = dir.write("bad.csv", good +
                                             "2023/05/10 12:34:57.000, lots W\n"
                                             "garbage\n"
                                             "2023/05/10 12:34:58.000, 100.00 W\n");
  const auto trace = read_nvidia_smi_log(path.string(), PowerLogOptions{});
  ASSERT_FALSE(trace.ok());
  EXPECT_NE(trace.error().message().find(path.string() + ":3: field 'power.draw'"),
            std::string::npos)
      << trace.error().message();
  EXPECT_TRUE(
      trace.error().message().ends_with(fmt::format("(line 3 starts at byte {})", good.size())))
      << trace.error().message();
}

}  // namespace
}  // namespace jouleprof
