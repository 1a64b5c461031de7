#include "attribution/method_choice.hpp"

#include <gtest/gtest.h>

namespace jouleprof::attribution {
namespace {

TEST(MethodChoice, AutoInterpolatesAFineCounterAndSaysWhy) {
  const MethodChoice c =
      choose_method(AttributionMethod::kAuto, {kNsPerMs, 10 * kNsPerMs, 0.5, false}, false);
  EXPECT_EQ(c.method, AttributionMethod::kInterpolate);
  EXPECT_EQ(c.reason,
            "auto: fine counter, update period 1 ms vs typical span 10 ms (fine when ≤ 0.5×)");
}

TEST(MethodChoice, AutoOnACoarseCounterCalibratesWhenItCanElseRegresses) {
  const CounterFineness coarse{100 * kNsPerMs, kNsPerMs, 0.5, false};
  EXPECT_EQ(choose_method(AttributionMethod::kAuto, coarse, true).method,
            AttributionMethod::kCalibrated);
  const MethodChoice regress = choose_method(AttributionMethod::kAuto, coarse, false);
  EXPECT_EQ(regress.method, AttributionMethod::kRegress);
  EXPECT_NE(regress.reason.find("no calibration, so regress"), std::string::npos) << regress.reason;
  // With no span to split, any counter is fine.
  EXPECT_EQ(choose_method(AttributionMethod::kAuto, {100 * kNsPerMs, 0, 0.5, true}, false).method,
            AttributionMethod::kInterpolate);
}

TEST(MethodChoice, ARequestIsKept) {
  const MethodChoice c =
      choose_method(AttributionMethod::kHold, {100 * kNsPerMs, kNsPerMs, 0.5, false}, true);
  EXPECT_EQ(c.method, AttributionMethod::kHold);
  EXPECT_EQ(c.reason.rfind("requested (update period 100 ms", 0), 0U) << c.reason;
}

}  // namespace
}  // namespace jouleprof::attribution
