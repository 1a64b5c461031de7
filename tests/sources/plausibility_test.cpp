#include "sources/plausibility.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace jouleprof {
namespace {

Channel channel(ChannelKind kind, std::string domain) {
  Channel c;
  c.id = "c";
  c.kind = kind;
  c.domain = std::move(domain);
  return c;
}

TEST(Plausibility, CeilingsByDeviceClass) {
  EXPECT_EQ(power_ceiling("package").watts, 1000.0);
  EXPECT_EQ(power_ceiling("core").watts, 1000.0);
  EXPECT_EQ(power_ceiling("dram").watts, 500.0);
  EXPECT_EQ(power_ceiling("gpu").watts, 2000.0);
  EXPECT_EQ(power_ceiling("battery").watts, 500.0);
  EXPECT_EQ(power_ceiling("psys").watts, 5000.0);
  EXPECT_EQ(power_ceiling("").watts, 20000.0);
  EXPECT_EQ(power_ceiling("rail").watts, 20000.0);
}

TEST(Plausibility, EnergyIsJudgedWithTheUpdateSlack) {
  const PowerCeiling gpu = power_ceiling("gpu");
  // A 100 ms NVML update caught in a 1 ms interval is fine; 262 kJ in 10 ms is not.
  EXPECT_TRUE(plausible_energy(gpu, kNsPerMs, 70.0));
  EXPECT_TRUE(plausible_energy(gpu, 10 * kNsPerS, 20000.0));
  EXPECT_FALSE(plausible_energy(power_ceiling("package"), 10 * kNsPerMs, 262143.0));
  EXPECT_FALSE(plausible_energy(gpu, kNsPerS, -1.0));
  EXPECT_FALSE(plausible_energy(gpu, kNsPerS, std::numeric_limits<double>::quiet_NaN()));
}

TEST(Plausibility, CounterAdvancesAreKeptAsRead) {
  ReadingJudge judge(channel(ChannelKind::kEnergyCounter, "package"));
  EXPECT_EQ(judge.judge(0, 1234.5).value, 1234.5);
  const auto v = judge.judge(kNsPerS, 1300.25);
  EXPECT_TRUE(v.keep);
  EXPECT_TRUE(v.problem.empty());
  EXPECT_EQ(v.value, 1300.25);  // no drift: the stored value is the reading itself
}

TEST(Plausibility, ResetIsLeftOutAndCountedOnFromItsLevel) {
  ReadingJudge judge(channel(ChannelKind::kEnergyCounter, "package"));
  judge.judge(0, 100.0);
  judge.judge(kNsPerS, 110.0);
  const auto reset = judge.judge(2 * kNsPerS, 1.0);
  EXPECT_FALSE(reset.keep);
  EXPECT_EQ(reset.problem, "counter went backwards (1 J after 110 J)");
  const auto after = judge.judge(3 * kNsPerS, 11.0);
  EXPECT_TRUE(after.keep);
  EXPECT_TRUE(after.problem.empty());
  EXPECT_EQ(after.value, 120.0);  // 110 + (11 − 1): the reset's own second is lost, nothing more
}

TEST(Plausibility, StaleReadIsLeftOutAndCostsNothing) {
  ReadingJudge judge(channel(ChannelKind::kEnergyCounter, "gpu"));
  judge.judge(0, 100.0);
  EXPECT_FALSE(judge.judge(kNsPerS, 99.0).keep);
  const auto next = judge.judge(2 * kNsPerS, 120.0);
  EXPECT_TRUE(next.keep);
  EXPECT_EQ(next.value, 120.0);
}

TEST(Plausibility, JumpsAndAbsurdValuesAreLeftOut) {
  ReadingJudge judge(channel(ChannelKind::kEnergyCounter, "package"));
  judge.judge(0, 10.0);
  const auto jump = judge.judge(10 * kNsPerMs, 1e7);
  EXPECT_FALSE(jump.keep);
  EXPECT_NE(jump.problem.find("counter jumped by"), std::string::npos) << jump.problem;
  EXPECT_NE(jump.problem.find("1000 W ceiling of a CPU package"), std::string::npos);
  const auto absurd = judge.judge(20 * kNsPerMs, 1e308);
  EXPECT_FALSE(absurd.keep);
  EXPECT_NE(absurd.problem.find("absurd"), std::string::npos);
  const auto nan = judge.judge(30 * kNsPerMs, std::nan(""));
  EXPECT_FALSE(nan.keep);
  EXPECT_EQ(judge.judge(40 * kNsPerMs, 10.5).value, 10.5);  // back on track from 10 J
}

TEST(Plausibility, CounterThatReallyMovedIsFollowed) {
  // A counter restarted at a new level keeps counting from there after one left-out reading.
  ReadingJudge judge(channel(ChannelKind::kEnergyCounter, "package"));
  judge.judge(0, 10.0);
  EXPECT_FALSE(judge.judge(kNsPerS, 5e6).keep);
  const auto v = judge.judge(2 * kNsPerS, 5e6 + 50.0);
  EXPECT_TRUE(v.keep);
  EXPECT_EQ(v.value, 60.0);
}

// Found by fuzz/nvml_poll_log_fuzz.cpp: 353.181 J, then a jump and a reset, then the reset's
// level again, was stored as 353.18099999999959 J: a counter going backwards by rounding.
TEST(Plausibility, RebasedCounterNeverStepsBackByRounding) {
  ReadingJudge judge(channel(ChannelKind::kEnergyCounter, "gpu"));
  judge.judge(0, 353.181);
  EXPECT_FALSE(judge.judge(kNsPerMs, 95367.467).keep);
  EXPECT_FALSE(judge.judge(30 * kNsPerMs, 4645.797).keep);
  const auto v = judge.judge(50 * kNsPerMs, 4645.797);
  EXPECT_TRUE(v.keep);
  EXPECT_GE(v.value, 353.181);
  EXPECT_NEAR(v.value, 353.181, 1e-9);
}

TEST(Plausibility, PowerLevels) {
  ReadingJudge meter(channel(ChannelKind::kPower, "system"));
  EXPECT_TRUE(meter.judge(0, 300.0).keep);
  EXPECT_EQ(meter.judge(1, -40.0).problem, "negative power (-40 W)");
  EXPECT_FALSE(meter.judge(2, 1e9).keep);
  ReadingJudge battery(channel(ChannelKind::kPower, "battery"));
  EXPECT_TRUE(battery.judge(0, -25.0).keep) << "a charging battery's power is negative";
  EXPECT_FALSE(battery.judge(1, -2500.0).keep);
  ReadingJudge utilisation(channel(ChannelKind::kUtilisation, "gpu"));
  EXPECT_TRUE(utilisation.judge(0, 1.0).keep);
  EXPECT_FALSE(utilisation.judge(1, 1.5).keep);
  ReadingJudge temperature(channel(ChannelKind::kTemperature, "gpu"));
  EXPECT_TRUE(temperature.judge(0, 45.0).keep);
  EXPECT_FALSE(temperature.judge(1, -300.0).keep);
}

TEST(Plausibility, ImportedSeriesGetGapsAndOneWarning) {
  Series s(channel(ChannelKind::kEnergyCounter, ""));
  for (double v : {0.0, 1.0, 2.0, 1.5, 3.0, 4.0, 0.5, 1.5}) {
    ASSERT_TRUE(s.append(static_cast<TimeNs>(s.size()) * kNsPerS, v));
  }
  const std::optional<std::string> warning = enforce_plausibility(s, "log.csv");
  ASSERT_TRUE(warning);
  EXPECT_NE(warning->find("log.csv: channel c: 2 implausible readings left out (first at t_ns "
                          "3000000000: counter went backwards (1.5 J after 2 J))"),
            std::string::npos)
      << *warning;
  ASSERT_EQ(s.size(), 6u);
  const std::vector<double> stored = {0.0, 1.0, 2.0, 3.0, 4.0, 5.0};  // 0.5 reset, 1.5 → 5
  for (std::size_t i = 0; i < stored.size(); ++i) EXPECT_EQ(s[i].value, stored[i]) << i;
  ASSERT_EQ(s.gaps().size(), 2u);
  EXPECT_EQ(s.gaps()[0].begin_ns, 2 * kNsPerS);
  EXPECT_EQ(s.gaps()[0].end_ns, 4 * kNsPerS);
  EXPECT_EQ(s.gaps()[1].begin_ns, 5 * kNsPerS);
  EXPECT_EQ(s.gaps()[1].end_ns, 7 * kNsPerS);

  Series clean(channel(ChannelKind::kPower, "gpu"));
  ASSERT_TRUE(clean.append(0, 100.0));
  ASSERT_TRUE(clean.append(1, 200.0));
  EXPECT_FALSE(enforce_plausibility(clean, "ok.csv"));
  EXPECT_EQ(clean.size(), 2u);
}

}  // namespace
}  // namespace jouleprof
