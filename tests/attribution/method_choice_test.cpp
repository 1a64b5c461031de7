#include "attribution/method_choice.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace jouleprof::attribution {
namespace {

TEST(MethodChoice, AutoInterpolatesAFineCounterAndSaysWhy) {
  const MethodChoice c =
      choose_method(AttributionMethod::kAuto, {kNsPerMs, 10 * kNsPerMs, 0.5, false}, false);
  EXPECT_EQ(c.method, AttributionMethod::kInterpolate);
  EXPECT_EQ(c.reason,
            "auto: fine counter, update period 1 ms vs typical span 10 ms (fine when ≤ 0.5×)");
}

TEST(MethodChoice, AutoComparesTheMethodsThatMayDoBest) {
  const CounterFineness coarse{100 * kNsPerMs, kNsPerMs, 0.5, false};
  const CounterFineness fine{kNsPerMs, 10 * kNsPerMs, 0.5, false};
  // With calibration weights, on any counter: interpolate refined with them, against calibrated.
  for (const CounterFineness& counter : {coarse, fine}) {
    const MethodChoice calibrated = choose_method(AttributionMethod::kAuto, counter, true);
    EXPECT_EQ(calibrated.method, AttributionMethod::kInterpolate);
    EXPECT_EQ(calibrated.rivals, std::vector<AttributionMethod>{AttributionMethod::kCalibrated});
  }
  const MethodChoice regress = choose_method(AttributionMethod::kAuto, coarse, false);
  EXPECT_EQ(regress.method, AttributionMethod::kRegress);
  EXPECT_EQ(regress.rivals, std::vector<AttributionMethod>{AttributionMethod::kInterpolate});
  EXPECT_NE(regress.reason.find("no calibration, so regress against interpolate"),
            std::string::npos)
      << regress.reason;
  // A fine counter without calibration is interpolated alone; so is any with no span to split.
  EXPECT_TRUE(choose_method(AttributionMethod::kAuto, fine, false).rivals.empty());
  EXPECT_EQ(choose_method(AttributionMethod::kAuto, {100 * kNsPerMs, 0, 0.5, true}, false).method,
            AttributionMethod::kInterpolate);
}

TEST(MethodChoice, TheSmallestExpectedErrorWinsAndTheReasonShowsTheFigures) {
  std::string reason = "auto";
  const std::size_t best = pick_smallest_error(
      {{AttributionMethod::kInterpolate, 0.5}, {AttributionMethod::kCalibrated, 0.2}}, 10.0,
      reason);
  EXPECT_EQ(best, 1U);
  EXPECT_EQ(reason,
            "auto; expected split error: interpolate ±0.5 J (5.00 % of the channel), calibrated "
            "±0.2 J (2.00 % of the channel); calibrated has the smallest");
  std::string tie;
  EXPECT_EQ(
      pick_smallest_error(
          {{AttributionMethod::kRegress, 0.2}, {AttributionMethod::kInterpolate, 0.2}}, 1.0, tie),
      0U)
      << "a tie keeps the first";
}

TEST(MethodChoice, ARequestIsKept) {
  const MethodChoice c =
      choose_method(AttributionMethod::kHold, {100 * kNsPerMs, kNsPerMs, 0.5, false}, true);
  EXPECT_EQ(c.method, AttributionMethod::kHold);
  EXPECT_EQ(c.reason.rfind("requested (update period 100 ms", 0), 0U) << c.reason;
}

}  // namespace
}  // namespace jouleprof::attribution
