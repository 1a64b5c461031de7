#include "sources/energy_accumulator.hpp"

#include <gtest/gtest.h>

#include <limits>

namespace jouleprof {
namespace {

constexpr double kMicrojoule = 1e-6;
constexpr std::uint64_t kPowercapModulus = 262'143'328'850ULL + 1;  // a real zone's range + 1

EnergyAccumulator powercap_package() {
  return EnergyAccumulator(kPowercapModulus, kMicrojoule, power_ceiling("package"));
}

TEST(EnergyAccumulator, FirstReadingIsTheBaseline) {
  EnergyAccumulator accumulator = powercap_package();
  EXPECT_FALSE(accumulator.has_baseline());
  accumulator.add(400, 0);
  EXPECT_TRUE(accumulator.has_baseline());
  EXPECT_EQ(accumulator.total(), 0);
  accumulator.add(450, 10 * kNsPerMs);
  EXPECT_EQ(accumulator.total(), 50);
}

TEST(EnergyAccumulator, PlausibleWrapsAreUndone) {
  EnergyAccumulator accumulator(std::uint64_t{1} << 32, 1.0 / 65536, power_ceiling("package"));
  TimeNs t = 0;
  accumulator.add(0xFFFFFF00u, t);
  accumulator.add(0x100, t += 10 * kNsPerMs);  // 0x100 to the wrap, 0x100 after it
  EXPECT_EQ(accumulator.total(), 0x200);
  // A turn of the 32-bit field is 65 536 J at this unit: half a turn in 200 s is 164 W.
  for (int turn = 0; turn < 3; ++turn) {
    accumulator.add(0x80000000u, t += 200 * kNsPerS);
    accumulator.add(0x100, t += 200 * kNsPerS);
  }
  EXPECT_EQ(accumulator.total(), 0x200 + 3 * (std::int64_t{1} << 32));
  EXPECT_EQ(accumulator.wraps(), 4u);
}

TEST(EnergyAccumulator, AResetOrAStepBackIsNotAWrap) {
  // With the real range, each would read as ~262 kJ in 10 ms (26 MW): passed on as a decrease.
  EnergyAccumulator reset = powercap_package();
  reset.add(5'000'000'000, 0);
  reset.add(0, 10 * kNsPerMs);
  EXPECT_EQ(reset.total(), -5'000'000'000);
  EXPECT_EQ(reset.wraps(), 0u);
  EnergyAccumulator step_back = powercap_package();
  step_back.add(5'000'000'000, 0);
  step_back.add(4'999'999'999, 10 * kNsPerMs);
  EXPECT_EQ(step_back.total(), -1);
  // Near the top of the range, the same step forward through the wrap is one.
  EnergyAccumulator near_top = powercap_package();
  near_top.add(kPowercapModulus - 1'000'000, 0);
  near_top.add(2'000'000, 10 * kNsPerMs);
  EXPECT_EQ(near_top.total(), 3'000'000);
  EXPECT_EQ(near_top.wraps(), 1u);
}

TEST(EnergyAccumulator, CounterWithoutRangeFollowsTheRawValue) {
  EnergyAccumulator no_wrap;
  no_wrap.add(100, 0);
  no_wrap.add(50, 1);
  EXPECT_EQ(no_wrap.total(), -50);
  no_wrap.add(80, 2);
  EXPECT_EQ(no_wrap.total(), -20);
}

TEST(EnergyAccumulator, GarbageCannotOverflowTheCount) {
  EnergyAccumulator no_wrap;
  no_wrap.add(0, 0);
  no_wrap.add(std::numeric_limits<std::uint64_t>::max(), 1);
  no_wrap.add(std::numeric_limits<std::uint64_t>::max(), 2);
  EXPECT_EQ(no_wrap.total(), std::numeric_limits<std::int64_t>::max());
  no_wrap.add(0, 3);
  no_wrap.add(std::numeric_limits<std::uint64_t>::max(), 4);
  no_wrap.add(0, 5);
  no_wrap.add(std::numeric_limits<std::uint64_t>::max(), 6);
  no_wrap.add(0, 7);
  EXPECT_LE(no_wrap.total(), std::numeric_limits<std::int64_t>::max());
}

TEST(EnergyAccumulator, ARebaseKeepsTheTotalAndMovesTheReference) {
  EnergyAccumulator wrapping(1000, kMicrojoule, power_ceiling("gpu"));
  wrapping.add(100, 0);
  wrapping.add(300, 10 * kNsPerMs);
  wrapping.rebase(50);  // a reset the caller told apart from a wrap
  EXPECT_EQ(wrapping.total(), 200);
  EXPECT_EQ(wrapping.wraps(), 0u);
  wrapping.add(70, 20 * kNsPerMs);
  EXPECT_EQ(wrapping.total(), 220);
}

}  // namespace
}  // namespace jouleprof
