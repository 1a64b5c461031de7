#include <fmt/format.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "sources/power_log.hpp"
#include "test_support.hpp"

namespace jouleprof {
namespace {

using testing::shared_data;
using testing::TempDir;

struct Independent {
  std::size_t rows = 0;
  double first_power_w = 0.0;
  double span_s = 0.0;
  double trapezoid_j = 0.0;
};

// Plain reading of every row: mA × V / 1000, time in µs; no merging of equal stamps.
Independent independent_parse(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  Independent out;
  double first_t = 0.0, last_t = 0.0, last_p = 0.0;
  while (std::getline(in, line)) {
    std::stringstream ss(line);
    std::string t, ma, v;
    std::getline(ss, t, ',');
    std::getline(ss, ma, ',');
    std::getline(ss, v, ',');
    const double p = std::stod(ma) * std::stod(v) / 1000.0;
    if (out.rows == 0) {
      out.first_power_w = p;
      first_t = std::stod(t);
    }
    if (out.rows > 0) out.trapezoid_j += 0.5 * (p + last_p) * (std::stod(t) - last_t) * 1e-6;
    last_t = std::stod(t);
    last_p = p;
    ++out.rows;
  }
  out.span_s = (last_t - first_t) * 1e-6;
  return out;
}

class MonsoonCsv : public ::testing::TestWithParam<const char*> {};

TEST_P(MonsoonCsv, EnergyAgreesWithAPlainTrapezoid) {
  const std::string relative = std::string("deepen2023/monsoon/") + GetParam();
  JP_REQUIRE_SHARED_DATA(relative);
  const auto path = shared_data() / relative;
  const auto trace = read_meter_csv(path.string(), PowerLogOptions{});
  ASSERT_TRUE(trace) << trace.error().message();
  const Series& power = trace->series.at(0);
  const Independent expected = independent_parse(path);
  EXPECT_NEAR(ns_to_s(power.end_ns() - power.begin_ns()), expected.span_s, 1e-6);
  // Equal stamps are merged into their mean by the reader and kept apart here (their intervals
  // are zero long): the totals differ only by that rule.
  EXPECT_NEAR(power.total_energy_j(), expected.trapezoid_j, 2e-3 * expected.trapezoid_j);
  EXPECT_LE(power.size(), expected.rows);
  EXPECT_NE(power.channel().provenance_detail.find("epoch microseconds"), std::string::npos);
  EXPECT_TRUE(power.gaps().empty());
}

INSTANTIATE_TEST_SUITE_P(Recordings, MonsoonCsv,
                         ::testing::Values("idle_baseline.csv", "inference_run.csv",
                                           "mnv2_live_power.csv"));

TEST(MeterCsv, FirstSampleIsCurrentTimesVoltageAtItsEpochTime) {
  const char* relative = "deepen2023/monsoon/idle_baseline.csv";
  JP_REQUIRE_SHARED_DATA(relative);
  const auto trace = read_power_log((shared_data() / relative).string(), PowerLogFormat::kAuto, {});
  ASSERT_TRUE(trace) << trace.error().message();
  EXPECT_EQ(trace->format, "meter-csv");
  const Series& power = trace->series.at(0);
  EXPECT_EQ(power.front().t_ns, TimeNs{1721763718734138} * kNsPerUs);
  EXPECT_DOUBLE_EQ(power.front().value, 24.761185975247525 * 4.19375 / 1000.0);
}

TEST(MeterCsv, BadRowsNameFileLineAndField) {
  TempDir dir;
  auto path = dir.write("m.csv",
                        "Time(ms),Main(mA),Main Voltage(V),\n"
                        "1721763718734138,24.7,4.19,\n"
                        "1721763718734159,x,4.19,\n"
                        "1721763718734163,25.6,4.19,\n");
  auto trace = read_meter_csv(path.string(), {});
  ASSERT_FALSE(trace);
  EXPECT_NE(trace.error().message().find(path.string() + ":3"), std::string::npos);
  EXPECT_NE(trace.error().message().find("Main(mA)"), std::string::npos);

  path = dir.write("cut.csv",
                   "Time(ms),Main(mA),Main Voltage(V),\n"
                   "1721763718734138,24.7,4.19,\n"
                   "1721763718734159,24.7,4.19,\n"
                   "17217637187341");
  trace = read_meter_csv(path.string(), {});
  ASSERT_TRUE(trace) << trace.error().message();
  EXPECT_EQ(trace->series[0].size(), 2u);
  EXPECT_EQ(trace->warnings.size(), 1u);

  // Found by fuzz/meter_csv_fuzz.cpp: a time of 1.75e23 was converted to int64 nanoseconds
  // (undefined behaviour) instead of being refused.
  path = dir.write("far.csv",
                   "Time(ms),Main(mA),Main Voltage(V),\n"
                   "175095000000000000000000.5,24.7,4.19,\n"
                   "175095000000000000000001.5,24.7,4.19,\n");
  trace = read_meter_csv(path.string(), {});
  ASSERT_FALSE(trace);
  EXPECT_NE(trace.error().message().find(path.string() + ":2"), std::string::npos);
  EXPECT_NE(trace.error().message().find("Time"), std::string::npos);

  path = dir.write("h.csv", "when,amps\n1,2\n");
  trace = read_meter_csv(path.string(), {});
  ASSERT_FALSE(trace);
  EXPECT_NE(trace.error().message().find("header"), std::string::npos);
}

TEST(MeterCsv, ReadingStopsAtTheFirstBadLineAndSaysWhereItStarts) {
  TempDir dir;
  const std::string good = "Time(ms),Main(mA),Main Voltage(V),\n1721763718734138,24.7,4.19,\n";
  const auto path = dir.write("m.csv", good + "1721763718734159,x,4.19,\ngarbage\n1,2,3\n");
  const auto trace = read_meter_csv(path.string(), {});
  ASSERT_FALSE(trace.ok());
  EXPECT_EQ(trace.error().message(),
            fmt::format("{}:3: field 'Main(mA)' has value 'x': not a number (line 3 starts at "
                        "byte {})",
                        path.string(), good.size()));
}

}  // namespace
}  // namespace jouleprof
