#include "jouleprof/energy_band.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace jouleprof {
namespace {

TEST(EnergyBand, IndependentTermsAddAsTheRootSumOfSquares) {
  const std::vector<UncertaintyPart> parts{{UncertaintyTerm::kGain, 3.0, 0.0, 0.0},
                                           {UncertaintyTerm::kSplit, 4.0, 0.0, 0.0}};
  const EnergyBand band = combine_uncertainty(100.0, parts);
  EXPECT_DOUBLE_EQ(band.low_j, 95.0);
  EXPECT_DOUBLE_EQ(band.high_j, 105.0);
  EXPECT_EQ(band.dominant, UncertaintyTerm::kSplit);
  EXPECT_DOUBLE_EQ(*band.relative_half_width(100.0), 0.05);
}

// Two ranks' nodes, each interval reaching far above its figure and little below: their sum's
// interval holds the sum (about the sum of the centres, it started above it).
TEST(EnergyBand, IndependentSumsOfLopsidedIntervalsHoldTheSum) {
  const EnergyBand a{0.9, 3.0, UncertaintyTerm::kSplit};
  const EnergyBand b{1.9, 4.0, UncertaintyTerm::kGain};
  const EnergyBand sum = add_independent_bands(1.0, a, 2.0, b);
  EXPECT_TRUE(sum.contains(3.0));
  EXPECT_DOUBLE_EQ(sum.low_j, 3.0 - std::hypot(0.1, 0.1));
  EXPECT_DOUBLE_EQ(sum.high_j, 3.0 + std::hypot(2.0, 2.0));
  EXPECT_EQ(sum.dominant, UncertaintyTerm::kSplit);
  const EnergyBand exact = add_independent_bands(1.0, {1.0, 1.0}, 2.0, {2.0, 2.0});
  EXPECT_DOUBLE_EQ(exact.low_j, 3.0);
  EXPECT_DOUBLE_EQ(exact.high_j, 3.0);
}

TEST(EnergyBand, MissingEnergyRaisesTheTopButTheIntervalStillHoldsTheFigure) {
  // A gap: between 2 and 30 J may be missing from the 10 J read.
  const std::vector<UncertaintyPart> parts{{UncertaintyTerm::kWindowEdges, 1.0, 0.0, 0.0},
                                           {UncertaintyTerm::kGaps, 0.0, 2.0, 30.0}};
  const EnergyBand band = combine_uncertainty(10.0, parts);
  EXPECT_DOUBLE_EQ(band.low_j, 10.0);  // 10 + 2 − 1 would leave the figure outside
  EXPECT_DOUBLE_EQ(band.high_j, 41.0);
  EXPECT_EQ(band.dominant, UncertaintyTerm::kGaps);
  EXPECT_TRUE(band.contains(10.0));
}

TEST(EnergyBand, NeverBelowZeroForAPositiveFigureButABatteryMayGoNegative) {
  const std::vector<UncertaintyPart> wide{{UncertaintyTerm::kEstimateModel, 8.0, 0.0, 0.0}};
  EXPECT_DOUBLE_EQ(combine_uncertainty(5.0, wide).low_j, 0.0);
  EXPECT_DOUBLE_EQ(combine_uncertainty(-5.0, wide).low_j, -13.0);
}

TEST(EnergyBand, NoTermsIsAnExactFigure) {
  const EnergyBand band = combine_uncertainty(7.0, {});
  EXPECT_DOUBLE_EQ(band.low_j, 7.0);
  EXPECT_DOUBLE_EQ(band.high_j, 7.0);
  EXPECT_FALSE(EnergyBand{}.relative_half_width(0.0).has_value());
}

TEST(EnergyBand, TermNamesReadBack) {
  for (std::size_t i = 0; i < kUncertaintyTermCount; ++i) {
    const auto term = static_cast<UncertaintyTerm>(i);
    EXPECT_EQ(uncertainty_term_from_string(to_string(term)), term);
  }
  EXPECT_FALSE(uncertainty_term_from_string("luck").has_value());
}

}  // namespace
}  // namespace jouleprof
