#include "report/power_points.hpp"

#include <gtest/gtest.h>

namespace jouleprof::report {
namespace {

Series counter(std::initializer_list<std::pair<TimeNs, double>> readings) {
  Channel c;
  c.id = "test:counter";
  c.kind = ChannelKind::kEnergyCounter;
  Series s(c);
  for (const auto& [t_ns, j] : readings) EXPECT_TRUE(s.append(t_ns, j));
  return s;
}

double area_j(const std::vector<PowerInterval>& intervals) {
  double j = 0.0;
  for (const PowerInterval& iv : intervals) j += iv.power_w * ns_to_s(iv.end_ns - iv.begin_ns);
  return j;
}

TEST(PowerPoints, ACounterIsDifferentiatedBetweenItsKnots) {
  // A stale repeat at 1.5 s, and two changes at 1 s of which the first is the knot.
  const Series s = counter(
      {{0, 0.0}, {kNsPerS, 10.0}, {kNsPerS, 12.0}, {3 * kNsPerS / 2, 12.0}, {2 * kNsPerS, 22.0}});
  const std::vector<PowerInterval> intervals = power_intervals(s, 0);
  ASSERT_EQ(intervals.size(), 2u);
  EXPECT_EQ(intervals[0].begin_ns, 0);
  EXPECT_EQ(intervals[0].end_ns, kNsPerS);
  EXPECT_DOUBLE_EQ(intervals[0].power_w, 10.0);
  EXPECT_EQ(intervals[1].begin_ns, kNsPerS);
  EXPECT_EQ(intervals[1].end_ns, 2 * kNsPerS);
  EXPECT_DOUBLE_EQ(intervals[1].power_w, 12.0);
  // The chart's area is the energy the profile's total counts.
  EXPECT_DOUBLE_EQ(area_j(intervals), s.total_energy_j());
}

TEST(PowerPoints, AnIntervalThatOverlapsAGapIsLeftOut) {
  Series s = counter({{0, 0.0}, {kNsPerS, 10.0}, {3 * kNsPerS, 30.0}, {4 * kNsPerS, 40.0}});
  s.add_gap(Gap{2 * kNsPerS, 5 * kNsPerS / 2, "read failed"});
  const std::vector<PowerInterval> intervals = power_intervals(s, 0);
  ASSERT_EQ(intervals.size(), 2u);
  EXPECT_EQ(intervals[0].end_ns, kNsPerS);
  EXPECT_EQ(intervals[1].begin_ns, 3 * kNsPerS);
}

}  // namespace
}  // namespace jouleprof::report
