#include "core/counter_knots.hpp"

#include <gtest/gtest.h>

namespace jouleprof {
namespace {

Series counter() {
  Channel c;
  c.id = "test:counter";
  c.kind = ChannelKind::kEnergyCounter;
  return Series(c);
}

// A 50 W counter that updates every 10 ms, read every 1 ms, the first reading 4 ms after an
// update: nine stale repeats between two updates.
Series read_faster_than_it_updates() {
  Series s = counter();
  for (TimeNs t = 4 * kNsPerMs; t <= 100 * kNsPerMs; t += kNsPerMs) {
    const TimeNs last_update = t / (10 * kNsPerMs) * (10 * kNsPerMs);
    EXPECT_TRUE(s.append(t, 50.0 * ns_to_s(last_update)));
  }
  return s;
}

TEST(CounterKnots, UpdatesAreKnotsStaleRepeatsAreNot) {
  const Series s = read_faster_than_it_updates();
  const std::vector<std::size_t> knots = counter_knots(s);
  ASSERT_EQ(knots.size(), 11U);  // the first reading (4 ms), then the readings at 10, 20, …, 100 ms
  EXPECT_EQ(s[knots[0]].t_ns, 4 * kNsPerMs);
  for (std::size_t k = 1; k < knots.size(); ++k)
    EXPECT_EQ(s[knots[k]].t_ns, static_cast<TimeNs>(k) * 10 * kNsPerMs);
}

TEST(CounterKnots, TheFirstReadingIsAKnotWhenTheCounterChangedRightAfterIt) {
  Series s = counter();
  ASSERT_TRUE(s.append(0, 0.0));
  ASSERT_TRUE(s.append(kNsPerMs, 1.0));
  ASSERT_TRUE(s.append(2 * kNsPerMs, 1.0));
  ASSERT_TRUE(s.append(3 * kNsPerMs, 2.0));
  EXPECT_EQ(counter_knots(s), (std::vector<std::size_t>{0, 1, 3}));
}

TEST(CounterKnots, OfChangesAtOneInstantTheFirstCounts) {
  Series s = counter();
  ASSERT_TRUE(s.append(0, 0.0));
  ASSERT_TRUE(s.append(kNsPerMs, 0.0));
  ASSERT_TRUE(s.append(2 * kNsPerMs, 1.0));
  ASSERT_TRUE(s.append(2 * kNsPerMs, 1.5));
  ASSERT_TRUE(s.append(4 * kNsPerMs, 3.5));
  EXPECT_EQ(counter_knots(s), (std::vector<std::size_t>{0, 2, 4}));
  EXPECT_DOUBLE_EQ(counter_value_at(s, 3 * kNsPerMs), 2.25);
}

// Between knots the counter is interpolated, whatever the stale readings in between say; the first
// reading is a knot (its value is read, not guessed), so a window that starts at the series'
// start counts the first update's energy from there, at most one update period early.
TEST(CounterKnots, ReadsBetweenKnotsAndHoldsOutsideThem) {
  const Series s = read_faster_than_it_updates();
  EXPECT_DOUBLE_EQ(counter_value_at(s, 15 * kNsPerMs), 50.0 * 0.015);
  EXPECT_DOUBLE_EQ(counter_value_at(s, 20 * kNsPerMs), 50.0 * 0.020);
  EXPECT_DOUBLE_EQ(counter_value_at(s, 5 * kNsPerMs), 50.0 * 0.010 / 6.0);
  EXPECT_DOUBLE_EQ(counter_value_at(s, kNsPerS), 50.0 * 0.100);
  // The window's energy is its length at 50 W, not the stale readings' 0 or 0.5 J.
  EXPECT_NEAR(s.energy_between_j(23 * kNsPerMs, 29 * kNsPerMs), 50.0 * 0.006, 1e-12);
  EXPECT_NEAR(s.total_energy_j(), 50.0 * 0.100, 1e-12);
}

TEST(CounterKnots, ACounterThatNeverChangedHasNoEnergy) {
  Series s = counter();
  ASSERT_TRUE(s.append(0, 7.0));
  ASSERT_TRUE(s.append(kNsPerS, 7.0));
  EXPECT_EQ(counter_knots(s), std::vector<std::size_t>{0});
  EXPECT_DOUBLE_EQ(s.total_energy_j(), 0.0);
  EXPECT_DOUBLE_EQ(counter_value_at(counter(), 0), 0.0);
}

}  // namespace
}  // namespace jouleprof
