// Budgets that know noise, on seeded noisy runs: a small change inside the runs' spread is within
// noise, a large one over enough runs fails the budget, and mixed provenance or channels are
// refused.
#include "jouleprof/noise_budget.hpp"

#include <gtest/gtest.h>

#include <random>

namespace jouleprof {
namespace {

// `n` runs around `mean_j` with a relative standard deviation `noise`, from `seed`.
std::vector<RunSample> noisy_runs(std::size_t n, double mean_j, double noise, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> spread(0.0, noise * mean_j);
  std::vector<RunSample> runs;
  for (std::size_t i = 0; i < n; ++i) {
    RunSample r;
    r.label = "run " + std::to_string(i + 1);
    r.energy_j = mean_j + spread(rng);
    r.channels = "rapl:package-0";
    runs.push_back(r);
  }
  return runs;
}

EnergyBudget five_percent() { return *parse_budget("5%"); }

TEST(NoiseBudget, AThreePercentChangeInFivePercentNoiseIsWithinNoise) {
  const auto baseline = noisy_runs(10, 100.0, 0.05, 1);
  const auto candidate = noisy_runs(10, 103.0, 0.05, 2);
  auto c = compare_run_groups(baseline, candidate);
  ASSERT_TRUE(c.ok()) << c.error().message();
  EXPECT_LT(c->low_j, 0.0);
  EXPECT_GT(c->high_j, 0.0);
  EXPECT_EQ(c->degrees_of_freedom >= 15u, true) << c->degrees_of_freedom;
  const NoiseVerdict v = check_noise_budget(*c, five_percent());
  EXPECT_TRUE(v.within_noise) << v.explanation;
  EXPECT_FALSE(v.exceeded) << v.explanation;
  EXPECT_NE(v.explanation.find("within noise"), std::string::npos) << v.explanation;
}

TEST(NoiseBudget, ATenPercentChangeOverTenRunsEachFailsAFivePercentBudget) {
  const auto baseline = noisy_runs(10, 100.0, 0.05, 3);
  const auto candidate = noisy_runs(10, 110.0, 0.05, 4);
  auto c = compare_run_groups(baseline, candidate);
  ASSERT_TRUE(c.ok()) << c.error().message();
  const NoiseVerdict v = check_noise_budget(*c, five_percent());
  EXPECT_TRUE(v.exceeded) << v.explanation;
  EXPECT_FALSE(v.within_noise);
  EXPECT_GT(*c->relative_low(), 0.05) << v.explanation;
  EXPECT_NE(v.explanation.find("REGRESSION"), std::string::npos) << v.explanation;
  // The same change measured with single runs is not a regression one can be sure of.
  const auto one_each =
      compare_run_groups(std::span(baseline).first(2), std::span(candidate).first(2));
  ASSERT_TRUE(one_each.ok());
  EXPECT_FALSE(check_noise_budget(*one_each, five_percent()).exceeded);
}

// Welch's interval by hand: means 10 and 12, variances 1 and 4 over 5 runs each.
TEST(NoiseBudget, TheIntervalIsWelchs) {
  std::vector<RunSample> a, b;
  for (double e : {9.0, 10.0, 11.0, 10.0, 10.0}) a.push_back({"a", e, {}, {}, {}, ""});
  for (double e : {10.0, 12.0, 14.0, 12.0, 12.0}) b.push_back({"b", e, {}, {}, {}, ""});
  auto c = compare_run_groups(a, b);
  ASSERT_TRUE(c.ok());
  // s² = 0.5 and 2.0; variances of the means 0.1 and 0.4; dof = 0.25 / (0.01/4 + 0.16/4) = 5.88.
  EXPECT_EQ(c->degrees_of_freedom, 5u);
  const double half = 2.571 * std::sqrt(0.5);
  EXPECT_NEAR(c->difference_j, 2.0, 1e-12);
  EXPECT_NEAR(c->low_j, 2.0 - half, 1e-9);
  EXPECT_NEAR(c->high_j, 2.0 + half, 1e-9);
}

// A run's own 95 % interval: it floors its side's spread and makes one run comparable.
TEST(NoiseBudget, EachRunsOwnErrorBarCounts) {
  std::vector<RunSample> baseline;
  for (int i = 0; i < 4; ++i) baseline.push_back({"b", 100.0, 90.2, 109.8, {}, ""});  // σ = 5 J
  const std::vector<RunSample> candidate{{"c", 104.0, 94.2, 113.8, {}, ""}};
  auto c = compare_run_groups(baseline, candidate);
  ASSERT_TRUE(c.ok()) << c.error().message();
  // Identical baseline runs have no spread, but each says ±9.8 J: variance 25/4 + 25.
  EXPECT_NEAR(c->high_j - c->difference_j, 2.0 * std::sqrt(25.0 / 4.0 + 25.0), 0.5);
  EXPECT_TRUE(c->within_noise());
  const std::vector<RunSample> bare{{"run 7", 104.0, {}, {}, {}, ""}};
  auto refused = compare_run_groups(baseline, bare);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message().find("run 7"), std::string::npos);
  EXPECT_FALSE(compare_run_groups({}, bare).ok());
}

TEST(NoiseBudget, MixedProvenanceOrChannelsAreRefusedWithTheReason) {
  auto baseline = noisy_runs(5, 100.0, 0.05, 5);
  auto candidate = noisy_runs(5, 100.0, 0.05, 6);
  EXPECT_TRUE(check_comparable_groups(baseline, candidate).ok());
  candidate[2].provenance = Provenance::kEstimated;
  const Status estimated = check_comparable_groups(baseline, candidate);
  ASSERT_FALSE(estimated.ok());
  EXPECT_NE(estimated.error().message().find("run 3 (estimated)"), std::string::npos)
      << estimated.error().message();
  EXPECT_NE(estimated.error().message().find("--allow-mixed"), std::string::npos);
  candidate[2].provenance = Provenance::kMeasured;
  candidate[4].channels = "nvml:0:energy,rapl:package-0";
  const Status other_device = check_comparable_groups(baseline, candidate);
  ASSERT_FALSE(other_device.ok());
  EXPECT_NE(other_device.error().message().find("different sources or devices"), std::string::npos)
      << other_device.error().message();
}

}  // namespace
}  // namespace jouleprof
