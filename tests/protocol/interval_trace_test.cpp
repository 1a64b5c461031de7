#include "jouleprof/interval_trace.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace jouleprof {
namespace {

TEST(IntervalTrace, CounterBecomesDifferencesAndPowerBecomesEnergy) {
  Channel counter;
  counter.id = "c";
  Series s(counter);
  ASSERT_TRUE(s.append(0, 100.0));
  ASSERT_TRUE(s.append(kNsPerS, 105.0));
  ASSERT_TRUE(s.append(3 * kNsPerS, 125.0));
  const Result<IntervalTrace> t = intervals_from_series(s);
  ASSERT_TRUE(t);
  ASSERT_EQ(t->size(), 2u);
  EXPECT_DOUBLE_EQ((*t)[1].energy_j, 20.0);
  EXPECT_DOUBLE_EQ((*t)[1].power_w(), 10.0);

  Channel power = counter;
  power.kind = ChannelKind::kPower;
  Series p(power);
  ASSERT_TRUE(p.append(0, 50.0));
  ASSERT_TRUE(p.append(2 * kNsPerS, 60.0));
  const Result<IntervalTrace> tp = intervals_from_series(p);
  ASSERT_TRUE(tp);
  EXPECT_DOUBLE_EQ((*tp)[0].energy_j, 120.0);
}

TEST(IntervalTrace, ValidationNamesTheProblem) {
  EXPECT_NE(validate_trace({}, "x").error().message().find("empty"), std::string::npos);
  const IntervalTrace nan{{10, 10, std::nan("")}};
  EXPECT_NE(validate_trace(nan, "x").error().message().find("finite"), std::string::npos);
  const IntervalTrace dup{{10, 10, 1.0}, {10, 10, 1.0}};
  EXPECT_NE(validate_trace(dup, "x").error().message().find("duplicate"), std::string::npos);
  const IntervalTrace unsorted{{20, 10, 1.0}, {10, 10, 1.0}};
  EXPECT_NE(validate_trace(unsorted, "x").error().message().find("not sorted"), std::string::npos);
  Channel temp;
  temp.id = "t";
  temp.kind = ChannelKind::kTemperature;
  EXPECT_FALSE(intervals_from_series(Series(temp)));
}

}  // namespace
}  // namespace jouleprof
