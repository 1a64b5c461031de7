#include "number_checks.hpp"

#include <gtest/gtest.h>

#include <string>

#include "jouleprof/clock.hpp"

namespace jouleprof::cli {
namespace {

// What the validator says of `text`: empty when it accepts it.
std::string verdict(const CLI::Validator& check, std::string text) { return check(text); }

TEST(NumberChecks, ACountIsAWholeNumberUpToItsBound) {
  const CLI::Validator trees = count_up_to(kMaxTrees);
  EXPECT_EQ(verdict(trees, "1"), "");
  EXPECT_EQ(verdict(trees, "100000"), "");
  EXPECT_EQ(verdict(trees, "1e3"), "");
  EXPECT_EQ(verdict(trees, "2000000000"),
            "must be a whole number from 1 to 100000, got '2000000000'");
  for (const char* refused : {"0", "-1", "2.5", "nan", "inf", "x", "100001"}) {
    EXPECT_NE(verdict(trees, refused), "") << refused;
  }
  EXPECT_EQ(verdict(whole_number_in(0, kMaxRepetitions), "0"), "");
}

TEST(NumberChecks, ADurationFitsSixtyFourBitNanoseconds) {
  EXPECT_EQ(verdict(kDurationSeconds, "0.5"), "");
  EXPECT_EQ(verdict(kDurationSeconds, "3150000000"), "");
  EXPECT_EQ(verdict(kDurationSeconds, "1e308"),
            "must be a finite number of seconds above 0 and at most 3150000000 (100 years), got "
            "'1e308'");
  for (const char* refused : {"0", "-1", "nan", "inf", "3.2e9"}) {
    EXPECT_NE(verdict(kDurationSeconds, refused), "") << refused;
  }
  EXPECT_EQ(verdict(kDurationSecondsOrZero, "0"), "");
  EXPECT_NE(verdict(kDurationSecondsOrZero, "1e12"), "");
  EXPECT_EQ(verdict(kIntervalMilliseconds, "3150000000000"), "");
  EXPECT_NE(verdict(kIntervalMilliseconds, "1e300"), "");
  EXPECT_EQ(verdict(kExporterIntervalMilliseconds, "0"), "");
  EXPECT_EQ(verdict(kExporterIntervalMilliseconds, "10"), "");
  EXPECT_NE(verdict(kExporterIntervalMilliseconds, "9.99"), "");
  EXPECT_NE(verdict(kExporterIntervalMilliseconds, "1e-9"), "");
  // The largest accepted duration converts without overflow.
  EXPECT_GT(s_to_ns(kMaxDurationSeconds), 0);
}

}  // namespace
}  // namespace jouleprof::cli
