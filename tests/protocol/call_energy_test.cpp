#include "jouleprof/call_energy.hpp"

#include <gtest/gtest.h>

namespace jouleprof {
namespace {

constexpr TimeNs kStep = 500 * kNsPerMs;

// Samples every 0.5 s at the given powers; sample i ends at (i + 1) × 0.5 s.
IntervalTrace trace_of(const std::vector<double>& powers_w) {
  IntervalTrace t;
  for (std::size_t i = 0; i < powers_w.size(); ++i) {
    t.push_back(IntervalSample{static_cast<TimeNs>(i + 1) * kStep, kStep, powers_w[i] * 0.5});
  }
  return t;
}

TEST(CallEnergy, NetAndTailOnAKnownProfile) {
  // 40 idle samples at 10 W, the call for 4 samples at 30 W, a tail of 3 samples at 20 W that
  // stays above the baseline, then idle again.
  std::vector<double> p(40, 10.0);
  for (int i = 0; i < 4; ++i) p.push_back(30.0);
  for (int i = 0; i < 3; ++i) p.push_back(20.0);
  for (int i = 0; i < 20; ++i) p.push_back(10.0);
  const IntervalTrace t = trace_of(p);
  const TimeNs start = 40 * kStep;  // end of sample 39: nearest to the start
  const TimeNs end = 44 * kStep;    // nearest sample is 43, so the window is samples 39..42
  const Result<CallEnergy> r = analyse_call(t, start, end, CallAnalysisOptions{});
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_EQ(r->window_samples, 4u);
  EXPECT_DOUBLE_EQ(r->total_j, 0.5 * (10 + 30 + 30 + 30));
  EXPECT_NEAR(r->baseline_power_w, 10.0, 1e-12);
  EXPECT_NEAR(r->net_j, r->total_j - 10.0 * 2.0, 1e-9);
  // Forward moving average of 5 from sample 43 (30,20,20,20,10 → 20) … stays ≥ 10 W all the way
  // through the idle samples, which add nothing above the baseline.
  EXPECT_NEAR(r->tail_j, 0.5 * (30 - 10) + 3 * 0.5 * (20 - 10), 1e-9);
  EXPECT_DOUBLE_EQ(r->net_plus_tail_j, r->net_j + r->tail_j);
  EXPECT_EQ(r->baseline_samples, 39u);  // samples 0..38
}

TEST(CallEnergy, TailStopsWhenMovingAverageFallsBelowBaselinePlusMargin) {
  std::vector<double> p(40, 100.0);
  for (int i = 0; i < 4; ++i) p.push_back(200.0);
  p.push_back(103.0);
  for (int i = 0; i < 20; ++i) p.push_back(100.0);
  CallAnalysisOptions opts;
  opts.tail_margin_w = kFecomGpuTailMarginW;
  const Result<CallEnergy> r = analyse_call(trace_of(p), 40 * kStep, 44 * kStep, opts);
  ASSERT_TRUE(r);
  // Sample 43 (200 W) starts the tail: MA(200,103,100,100,100) = 120.6 ≥ 102. Sample 44:
  // MA(103,100,100,100,100) = 100.6 < 102: the tail ends.
  EXPECT_EQ(r->tail_duration_ns, kStep);
  EXPECT_NEAR(r->tail_j, 0.5 * (200 - 100), 1e-9);
}

TEST(CallEnergy, CallShorterThanOneSampleAsksForAmplification) {
  const IntervalTrace t = trace_of(std::vector<double>(60, 10.0));
  const Result<CallEnergy> r =
      analyse_call(t, 30 * kStep + 10, 30 * kStep + 20, CallAnalysisOptions{});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code(), ErrorCode::kUnsupported);
  EXPECT_NE(r.error().message().find("amplify"), std::string::npos);
}

TEST(CallEnergy, BadInput) {
  EXPECT_FALSE(analyse_call({}, 0, 10, CallAnalysisOptions{}));
  const IntervalTrace t = trace_of(std::vector<double>(60, 10.0));
  EXPECT_FALSE(analyse_call(t, 20 * kStep, 10 * kStep, CallAnalysisOptions{}));
  // No sample before the call: no baseline.
  const Result<CallEnergy> r = analyse_call(t, 0, 10 * kStep, CallAnalysisOptions{});
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message().find("baseline"), std::string::npos);
}

}  // namespace
}  // namespace jouleprof
