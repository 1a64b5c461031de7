#include "sources/device_clock.hpp"

#include <gtest/gtest.h>

namespace jouleprof {
namespace {

TEST(DeviceClock, TheFirstStampIsTakenAsFreshAndLaterOnesKeepItsOffset) {
  DeviceClock clock;  // ns
  EXPECT_EQ(clock.place(5'000, 1'000'000), 1'000'000);
  // A cached value read 3 ms later, stamped 1 ms after the first: placed when it was measured.
  EXPECT_EQ(clock.place(1'005'000, 4'000'000), 2'000'000);
  EXPECT_EQ(clock.previous_ns(), 2'000'000);
}

TEST(DeviceClock, TicksAreScaledToNanoseconds) {
  DeviceClock microseconds(kNsPerUs);
  EXPECT_EQ(microseconds.place(10, 50'000), 50'000);
  EXPECT_EQ(microseconds.place(30, 90'000), 70'000);  // 20 µs later on the device
}

TEST(DeviceClock, AReadingIsNeverPlacedAfterItsReadNorBeforeThePreviousOne) {
  DeviceClock clock;
  clock.place(1'000, 10'000);
  EXPECT_EQ(clock.place(900'000, 20'000), 20'000);  // a device clock running ahead
  EXPECT_EQ(clock.place(500, 30'000), 20'000);      // one that went back
}

TEST(DeviceClock, WithoutAStampTheReadTimeIsUsed) {
  DeviceClock clock;
  EXPECT_EQ(clock.place(0, 7'000), 7'000);
  EXPECT_EQ(clock.place(0, 9'000), 9'000);
  EXPECT_EQ(clock.previous_ns(), 9'000);
}

}  // namespace
}  // namespace jouleprof
