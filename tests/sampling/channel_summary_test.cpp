#include "jouleprof/channel_summary.hpp"

#include <gtest/gtest.h>

namespace jouleprof {
namespace {

Series counter_series(double watts_before, double watts_after, TimeNs step_at_ns) {
  Channel c;
  c.id = "c";
  c.kind = ChannelKind::kEnergyCounter;
  c.provenance = Provenance::kSimulated;
  Series s(c);
  double energy = 0.0;
  for (TimeNs t = 0; t <= 2 * kNsPerS; t += 10 * kNsPerMs) {
    EXPECT_TRUE(s.append(t, energy).ok());
    energy += (t < step_at_ns ? watts_before : watts_after) * 0.01;
  }
  return s;
}

TEST(ChannelSummary, CounterGrossNetMeanAndPeak) {
  const Series s = counter_series(10.0, 60.0, kNsPerS);  // idle 10 W for 1 s, then 60 W
  const ChannelSummary sum = summarize_channel(s, kNsPerS, 2 * kNsPerS, IdleWindow{0, kNsPerS});
  EXPECT_EQ(sum.channel_id, "c");
  EXPECT_EQ(sum.provenance, Provenance::kSimulated);
  EXPECT_EQ(sum.duration_ns, kNsPerS);
  EXPECT_NEAR(sum.energy_j, 60.0, 1e-9);
  EXPECT_NEAR(sum.mean_power_w, 60.0, 1e-9);
  EXPECT_NEAR(sum.peak_power_w, 60.0, 1e-9);
  ASSERT_TRUE(sum.idle_power_w.has_value());
  EXPECT_NEAR(*sum.idle_power_w, 10.0, 1e-9);
  EXPECT_NEAR(*sum.net_energy_j, 50.0, 1e-9);
}

TEST(ChannelSummary, PeakIsTheBestWindowNotTheMean) {
  const Series s = counter_series(10.0, 60.0, kNsPerS);
  const ChannelSummary sum = summarize_channel(s, 0, 2 * kNsPerS, std::nullopt);
  EXPECT_NEAR(sum.mean_power_w, 35.0, 1e-9);
  EXPECT_NEAR(sum.peak_power_w, 60.0, 1e-9);
  EXPECT_FALSE(sum.net_energy_j.has_value());
}

TEST(ChannelSummary, PeakOfASteadyCounterReadLateIsNotAboveItsPower) {
  // 24 W, the counter updating every 1 ms, read every 10 ms up to 1 ms after an update (what a
  // loaded sampler thread does): windows then hold up to one update too many.
  Channel c;
  c.id = "c";
  c.kind = ChannelKind::kEnergyCounter;
  c.nominal_period_ns = kNsPerMs;
  Series s(c);
  for (int i = 0; i <= 300; ++i) {
    const TimeNs update = i * 10 * kNsPerMs;
    const TimeNs late = (i * 7919 % 1000) * 1000;  // 0 … 999 µs, deterministic
    ASSERT_TRUE(s.append(update + late, 24.0 * ns_to_s(update)).ok());
  }
  const ChannelSummary sum = summarize_channel(s, 0, 3 * kNsPerS, std::nullopt);
  EXPECT_LE(sum.peak_power_w, 24.0 + 1e-9);
  EXPECT_GE(sum.peak_power_w, 24.0 * 0.995);
  EXPECT_GE(sum.peak_power_w, sum.mean_power_w);  // a peak under the mean would be no peak

  c.nominal_period_ns = 0;  // the old rule, without the widening, reads above the truth
  Series unknown(c);
  for (std::size_t i = 0; i < s.size(); ++i)
    ASSERT_TRUE(unknown.append(s[i].t_ns, s[i].value).ok());
  EXPECT_GT(summarize_channel(unknown, 0, 3 * kNsPerS, std::nullopt).peak_power_w, 24.1);
}

TEST(ChannelSummary, PowerChannelSkipsGapsAndTakesTheHighestSample) {
  Channel c;
  c.id = "p";
  c.kind = ChannelKind::kPower;
  Series s(c);
  ASSERT_TRUE(s.append(0, 10.0).ok());
  ASSERT_TRUE(s.append(kNsPerS, 10.0).ok());
  ASSERT_TRUE(s.append(2 * kNsPerS, 30.0).ok());
  s.add_gap({kNsPerS, 2 * kNsPerS, "read failed"});
  const ChannelSummary sum = summarize_channel(s, 0, 3 * kNsPerS, std::nullopt);
  EXPECT_EQ(sum.duration_ns, 2 * kNsPerS);  // clipped to what the series covers
  EXPECT_NEAR(sum.energy_j, 10.0, 1e-9);
  EXPECT_DOUBLE_EQ(sum.peak_power_w, 30.0);
}

TEST(ChannelSummary, EmptyOrOutsideWindowIsZero) {
  Channel c;
  c.id = "e";
  const ChannelSummary empty = summarize_channel(Series(c), 0, kNsPerS, std::nullopt);
  EXPECT_EQ(empty.energy_j, 0.0);
  EXPECT_EQ(empty.duration_ns, 0);
  EXPECT_NEAR(co2e_g(3.6e6, 400.0), 400.0, 1e-9);
}

}  // namespace
}  // namespace jouleprof
