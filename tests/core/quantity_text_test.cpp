#include "core/quantity_text.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace jouleprof {
namespace {

TEST(QuantityText, ThreeSignificantDigitsWithAnSiPrefix) {
  EXPECT_EQ(format_energy(0.000684), "684 µJ");
  EXPECT_EQ(format_energy(9.6e-05), "96.0 µJ");
  EXPECT_EQ(format_energy(17.07), "17.1 J");
  EXPECT_EQ(format_energy(4561.0), "4.56 kJ");
  EXPECT_EQ(format_energy(0.0123), "12.3 mJ");
  EXPECT_EQ(format_energy(3.2e-9), "3.20 nJ");
  EXPECT_EQ(format_energy(2.5e7), "25.0 MJ");
  EXPECT_EQ(format_power(24.08), "24.1 W");
  EXPECT_EQ(format_power(-12.34), "-12.3 W");
}

TEST(QuantityText, RoundingUpMovesToTheNextPrefix) {
  EXPECT_EQ(format_energy(999.7), "1.00 kJ");
  EXPECT_EQ(format_energy(0.99996), "1.00 J");
  EXPECT_EQ(format_energy(9.996), "10.0 J");
  EXPECT_EQ(format_energy(99.96), "100 J");
}

TEST(QuantityText, ZeroIsNeverNegativeAndNonFiniteIsInvalid) {
  EXPECT_EQ(format_energy(0.0), "0 J");
  EXPECT_EQ(format_energy(-0.0), "0 J");
  EXPECT_EQ(format_energy(-1e-17), "0 J");  // a difference of equal figures, not "-0.00 µJ"
  EXPECT_EQ(format_energy(std::nan("")), "invalid");
  EXPECT_EQ(format_energy(std::numeric_limits<double>::infinity()), "invalid");
  EXPECT_EQ(format_share(-1e-9), "0.0 %");
  EXPECT_EQ(format_share(0.125), "12.5 %");
  EXPECT_EQ(format_share(std::nan("")), "invalid");
}

TEST(QuantityText, Durations) {
  EXPECT_EQ(format_duration(1'500'000'000), "1.50 s");
  EXPECT_EQ(format_duration(12'000'000), "12.0 ms");
  EXPECT_EQ(format_duration(3'200), "3.20 µs");
  EXPECT_EQ(format_duration(640), "640 ns");
  EXPECT_EQ(format_duration(125 * kNsPerS), "2 min 05 s");
}

}  // namespace
}  // namespace jouleprof
