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
  // Beyond the plausibility gate's bound of the unit: not 300 digits of PJ.
  EXPECT_EQ(format_energy(1e308), "invalid");
  EXPECT_EQ(format_energy(1e15), "1.00 PJ");
  EXPECT_EQ(format_share(1e300), "invalid");
  EXPECT_EQ(format_in(1e308, si_prefix_of(1e308)), "invalid");
  EXPECT_EQ(format_share(-1e-9), "0.0 %");
  EXPECT_EQ(format_share(0.125), "12.5 %");
  EXPECT_EQ(format_share(std::nan("")), "invalid");
}

TEST(QuantityText, AColumnSharesTheUnitOfItsReferenceFigure) {
  const SiPrefix kilo = si_prefix_of(4561.0);
  EXPECT_EQ(kilo.symbol, "k");
  EXPECT_DOUBLE_EQ(kilo.factor, 1e3);
  EXPECT_EQ(format_in(4561.0, kilo), "4.56");
  EXPECT_EQ(format_in(45.6, kilo), "0.0456");
  EXPECT_EQ(format_in(4.56e6, kilo), "4560");
  EXPECT_EQ(format_in(9996.0, kilo), "10.0");
  EXPECT_EQ(format_in(-1e-17, kilo), "0");
  EXPECT_EQ(format_in(std::nan(""), kilo), "invalid");
  // The prefix is the one format_si gives the reference, rounding up included.
  EXPECT_EQ(si_prefix_of(999.7).symbol, "k");
  EXPECT_EQ(si_prefix_of(4.1e6).symbol, "M");
  EXPECT_EQ(si_prefix_of(2.5e9).symbol, "G");
  EXPECT_EQ(si_prefix_of(17.0).symbol, "");
  EXPECT_EQ(si_prefix_of(0.0).symbol, "");
  EXPECT_DOUBLE_EQ(si_prefix_of(std::nan("")).factor, 1.0);
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
