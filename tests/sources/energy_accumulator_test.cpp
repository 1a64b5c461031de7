#include "sources/energy_accumulator.hpp"

#include <gtest/gtest.h>

namespace jouleprof {
namespace {

TEST(EnergyAccumulator, FirstReadingIsTheBaseline) {
  EnergyAccumulator accumulator(1000);
  EXPECT_FALSE(accumulator.has_baseline());
  EXPECT_TRUE(accumulator.add(400));
  EXPECT_TRUE(accumulator.has_baseline());
  EXPECT_EQ(accumulator.total(), 0u);
  EXPECT_TRUE(accumulator.add(450));
  EXPECT_EQ(accumulator.total(), 50u);
}

TEST(EnergyAccumulator, WrapsAreUndoneBeyondTheRawRange) {
  EnergyAccumulator accumulator(std::uint64_t{1} << 32);
  accumulator.add(0xFFFFFF00u);
  EXPECT_TRUE(accumulator.add(0x100));  // 0x100 to the wrap, 0x100 after it
  EXPECT_EQ(accumulator.total(), 0x200u);
  for (int turn = 0; turn < 3; ++turn) {
    accumulator.add(0x80000000u);
    accumulator.add(0x100);
  }
  EXPECT_EQ(accumulator.total(), 0x200u + 3 * (std::uint64_t{1} << 32));
  EXPECT_EQ(accumulator.wraps(), 4u);
}

TEST(EnergyAccumulator, DecreaseThatCannotBeAWrapIsRejected) {
  EnergyAccumulator no_wrap;
  no_wrap.add(100);
  EXPECT_FALSE(no_wrap.add(50));
  EXPECT_EQ(no_wrap.total(), 0u);
  EXPECT_TRUE(no_wrap.add(80));  // the rejected reading became the new reference
  EXPECT_EQ(no_wrap.total(), 30u);

  EnergyAccumulator bounded(1000);
  bounded.add(5000);  // beyond the range: a later decrease cannot be a wrap
  EXPECT_FALSE(bounded.add(10));
}

TEST(EnergyAccumulator, ARebaseKeepsTheTotalAndMovesTheReference) {
  EnergyAccumulator wrapping(1000);
  wrapping.add(100);
  wrapping.add(300);
  wrapping.rebase(50);  // a reset the caller told apart from a wrap
  EXPECT_EQ(wrapping.total(), 200u);
  EXPECT_EQ(wrapping.wraps(), 0u);
  wrapping.add(70);
  EXPECT_EQ(wrapping.total(), 220u);
}

}  // namespace
}  // namespace jouleprof
