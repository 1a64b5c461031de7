#include "jouleprof/stability.hpp"

#include <gtest/gtest.h>

#include <random>

namespace jouleprof {
namespace {

IntervalTrace trace_with(double mean_w, double noise_w, double drift_w_per_sample, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> noise(0.0, noise_w);
  IntervalTrace t;
  for (int i = 0; i < 40; ++i) {
    const double p = mean_w + drift_w_per_sample * i + noise(rng);
    t.push_back(IntervalSample{(i + 1) * 100 * kNsPerMs, 100 * kNsPerMs, p * 0.1});
  }
  return t;
}

TEST(Stability, StableTraceIsAccepted) {
  const StabilityCheck c =
      check_stability(trace_with(50, 0.2, 0, 1), 4 * kNsPerS, StabilityOptions{});
  EXPECT_TRUE(c.stable) << c.reason;
  EXPECT_LT(c.cv, 0.03);
  EXPECT_EQ(c.samples, 20u);
  EXPECT_NEAR(c.mean_power_w, 50, 0.5);
}

TEST(Stability, NoisyAndDriftingTracesAreRejected) {
  const StabilityCheck noisy =
      check_stability(trace_with(50, 5, 0, 2), 4 * kNsPerS, StabilityOptions{});
  EXPECT_FALSE(noisy.stable);
  EXPECT_NE(noisy.reason.find("coefficient of variation"), std::string::npos);
  const StabilityCheck drifting =
      check_stability(trace_with(50, 0, 1.0, 3), 4 * kNsPerS, StabilityOptions{});
  EXPECT_FALSE(drifting.stable);
  // A GPU threshold (1 %) rejects what the CPU threshold (3 %) accepts.
  StabilityOptions gpu;
  gpu.max_cv = kFecomGpuMaxCv;
  const IntervalTrace moderate = trace_with(50, 0.9, 0, 4);
  EXPECT_TRUE(check_stability(moderate, 4 * kNsPerS, StabilityOptions{}).stable);
  EXPECT_FALSE(check_stability(moderate, 4 * kNsPerS, gpu).stable);
  gpu.tolerance = 2.0;  // threshold 3 %
  EXPECT_TRUE(check_stability(moderate, 4 * kNsPerS, gpu).stable);
}

TEST(Stability, TooFewSamplesIsNotStable) {
  const StabilityCheck c =
      check_stability(trace_with(50, 0, 0, 5), 1 * kNsPerS, StabilityOptions{});
  EXPECT_FALSE(c.stable);
  EXPECT_EQ(c.samples, 10u);
}

}  // namespace
}  // namespace jouleprof
