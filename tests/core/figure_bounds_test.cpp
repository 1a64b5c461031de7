#include "core/figure_bounds.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace jouleprof {
namespace {

TEST(FigureBounds, EachKindHasItsPhysicalRange) {
  EXPECT_TRUE(plausible(FigureKind::kEnergy, 0.0));
  EXPECT_TRUE(plausible(FigureKind::kEnergy, 1e15));
  EXPECT_FALSE(plausible(FigureKind::kEnergy, 1.01e15));
  EXPECT_FALSE(plausible(FigureKind::kEnergy, -1.0));  // energy is never negative
  EXPECT_TRUE(plausible(FigureKind::kEnergyChange, -1.0));
  EXPECT_FALSE(plausible(FigureKind::kEnergyChange, -1e308));
  EXPECT_TRUE(plausible(FigureKind::kDevicePower, kMaxDevicePowerW));
  EXPECT_FALSE(plausible(FigureKind::kDevicePower, kMaxDevicePowerW * 1.01));
  EXPECT_TRUE(plausible(FigureKind::kPower, kMaxDevicePowerW * 10));
  EXPECT_FALSE(plausible(FigureKind::kDuration, 1e10));
  EXPECT_FALSE(plausible(FigureKind::kFlops, 1e308));
  EXPECT_TRUE(plausible(FigureKind::kPercent, -99.59));
  EXPECT_FALSE(plausible(FigureKind::kScore, 15032188088.3));
  for (FigureKind kind : {FigureKind::kEnergy, FigureKind::kPower, FigureKind::kPercent}) {
    EXPECT_FALSE(plausible(kind, std::nan("")));
    EXPECT_FALSE(plausible(kind, std::numeric_limits<double>::infinity()));
  }
}

TEST(FigureBounds, SaysWhyAndRefusesInputByName) {
  EXPECT_EQ(implausibility(FigureKind::kEnergy, 1.0), "");
  EXPECT_EQ(implausibility(FigureKind::kEnergy, 1e308), "is above 1e+15 J (1 MW for 32 years)");
  EXPECT_EQ(implausibility(FigureKind::kEnergy, -3.0), "is negative");
  const Status refused = check_figure(FigureKind::kEnergy, "runs.csv:2", "energy_j", 1e308);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().message(),
            "runs.csv:2: field 'energy_j' has value '1e+308': is above 1e+15 J (1 MW for 32 "
            "years)");
  const Status tiny = check_measured_divisor(FigureKind::kEnergy, "e.csv", "energy_j", 1e-308);
  ASSERT_FALSE(tiny.ok());
  EXPECT_NE(tiny.error().message().find("is below 1e-12 J"), std::string::npos);
}

TEST(FigureBounds, AWithheldFigureBecomesNanWithAWarning) {
  double energy_j = 1e308;
  const std::optional<std::string> warning =
      withhold_implausible(FigureKind::kEnergy, "the STEP estimate", energy_j);
  ASSERT_TRUE(warning.has_value());
  EXPECT_EQ(*warning, "the STEP estimate is above 1e+15 J (1 MW for 32 years): withheld");
  EXPECT_TRUE(std::isnan(energy_j));
  double fine_j = 12.0;
  EXPECT_FALSE(withhold_implausible(FigureKind::kEnergy, "x", fine_j).has_value());
  EXPECT_EQ(fine_j, 12.0);
}

TEST(FigureBounds, PrintedFiguresAreBoundedByTheirUnit) {
  EXPECT_TRUE(plausible_magnitude("J", -1e15));
  EXPECT_FALSE(plausible_magnitude("J", 1e308));
  EXPECT_TRUE(plausible_magnitude("W", 2e9));
  EXPECT_FALSE(plausible_magnitude("s", 1e10));
  EXPECT_FALSE(plausible_magnitude("g", 1e16));  // another unit: 1e15 of it
}

}  // namespace
}  // namespace jouleprof
