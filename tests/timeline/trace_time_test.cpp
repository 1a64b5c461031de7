#include "timeline/trace_time.hpp"

#include <gtest/gtest.h>

namespace jouleprof::timeline {
namespace {

TEST(MicrosecondsToken, ExactAtEpochMagnitudes) {
  // Through a double this would be off by up to a nanosecond or two.
  EXPECT_EQ(microseconds_token_to_ns("5132481649229.954"), 5'132'481'649'229'954);
  EXPECT_EQ(microseconds_token_to_ns("1552000000100050"), 1'552'000'000'100'050'000);
  EXPECT_EQ(microseconds_token_to_ns("0.5"), 500);
  EXPECT_EQ(microseconds_token_to_ns("12"), 12'000);
  EXPECT_EQ(microseconds_token_to_ns("-2.5"), -2'500);
  EXPECT_EQ(microseconds_token_to_ns("1.0004"), 1'000);
  EXPECT_EQ(microseconds_token_to_ns("1.0005"), 1'001) << "rounded half away from zero";
  EXPECT_EQ(microseconds_token_to_ns("2.5e3"), 2'500'000);
  EXPECT_EQ(microseconds_token_to_ns("7 "), 7'000);
}

TEST(MicrosecondsToken, RejectsWhatIsNotANumber) {
  EXPECT_FALSE(microseconds_token_to_ns(""));
  EXPECT_FALSE(microseconds_token_to_ns("\"12\""));
  EXPECT_FALSE(microseconds_token_to_ns("1."));
  EXPECT_FALSE(microseconds_token_to_ns("-"));
  EXPECT_FALSE(microseconds_token_to_ns("1.2.3"));
  EXPECT_FALSE(microseconds_token_to_ns("null"));
  EXPECT_FALSE(microseconds_token_to_ns("99999999999999999999")) << "does not fit in 64-bit ns";
  EXPECT_FALSE(microseconds_token_to_ns("1e300"));
}

}  // namespace
}  // namespace jouleprof::timeline
