#include "jouleprof/series.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace jouleprof {
namespace {

Channel counter_channel() {
  Channel c;
  c.id = "test:counter";
  c.kind = ChannelKind::kEnergyCounter;
  return c;
}

Channel power_channel() {
  Channel c;
  c.id = "test:power";
  c.kind = ChannelKind::kPower;
  return c;
}

TEST(Series, CounterEnergyIsInterpolatedBetweenUpdates) {
  Series s(counter_channel());
  ASSERT_TRUE(s.append(0, 0.0));
  ASSERT_TRUE(s.append(kNsPerS, 10.0));
  ASSERT_TRUE(s.append(2 * kNsPerS, 30.0));
  EXPECT_DOUBLE_EQ(s.total_energy_j(), 30.0);
  EXPECT_DOUBLE_EQ(s.energy_between_j(kNsPerS / 2, 3 * kNsPerS / 2), 5.0 + 10.0);
  EXPECT_DOUBLE_EQ(s.energy_between_j(-kNsPerS, kNsPerS), 10.0);  // clipped to coverage
}

TEST(Series, PowerEnergyByTrapezoidAndHold) {
  Series s(power_channel());
  ASSERT_TRUE(s.append(0, 100.0));
  ASSERT_TRUE(s.append(kNsPerS, 200.0));
  EXPECT_DOUBLE_EQ(s.total_energy_j(IntegrationRule::kTrapezoid), 150.0);
  EXPECT_DOUBLE_EQ(s.total_energy_j(IntegrationRule::kHold), 100.0);
  EXPECT_DOUBLE_EQ(s.energy_between_j(kNsPerS / 2, kNsPerS), 0.5 * (150.0 + 200.0) * 0.5);
}

TEST(Series, GapsContributeNoPowerEnergy) {
  Series s(power_channel());
  ASSERT_TRUE(s.append(0, 100.0));
  ASSERT_TRUE(s.append(kNsPerS, 100.0));
  ASSERT_TRUE(s.append(2 * kNsPerS, 100.0));
  s.add_gap(Gap{kNsPerS, 2 * kNsPerS, "read failed"});
  EXPECT_DOUBLE_EQ(s.total_energy_j(), 100.0);
}

TEST(Series, RejectsNanAndTimeGoingBackwards) {
  Series s(counter_channel());
  ASSERT_TRUE(s.append(10, 1.0));
  const Status back = s.append(5, 2.0);
  ASSERT_FALSE(back);
  EXPECT_NE(back.error().message().find("t_ns"), std::string::npos);
  EXPECT_FALSE(s.append(20, std::nan("")));
  EXPECT_EQ(s.size(), 1u);
}

TEST(Series, StoresAcrossChunksAndFindsUpdates) {
  Series s(counter_channel());
  const std::size_t n = Series::kChunkSamples * 2 + 17;
  for (std::size_t i = 0; i < n; ++i) {
    ASSERT_TRUE(s.append(static_cast<TimeNs>(i) * kNsPerMs, static_cast<double>(i / 10)));
  }
  EXPECT_EQ(s.size(), n);
  EXPECT_EQ(s[n - 1].t_ns, static_cast<TimeNs>(n - 1) * kNsPerMs);
  EXPECT_EQ(s.lower_bound(5000 * kNsPerMs), 5000u);
  EXPECT_EQ(s.measured_update_period_ns(), 10 * kNsPerMs);
  EXPECT_EQ(s.update_indices().front(), 10u);
}

TEST(Series, CopiesAreDeep) {
  Series s(counter_channel());
  for (int i = 0; i < 5000; ++i) ASSERT_TRUE(s.append(i, i));  // across two chunks
  s.add_gap(Gap{1, 2, "why"});
  Series copy = s;
  ASSERT_TRUE(s.append(6000, 6000.0));
  EXPECT_EQ(copy.size(), 5000u);
  EXPECT_EQ(copy[4999].value, 4999.0);
  EXPECT_EQ(copy.gaps().size(), 1u);
  copy = s;
  EXPECT_EQ(copy.back().value, 6000.0);
}

}  // namespace
}  // namespace jouleprof
