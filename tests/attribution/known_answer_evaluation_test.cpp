// The known-answer targets of docs/attribution.md, on the seeded simulator (the same cases that
// eval/attribution prints).
#include "testing/known_answer_evaluation.hpp"

#include <gtest/gtest.h>

#include <iostream>

namespace jouleprof::attribution {
namespace {

constexpr std::uint64_t kSeed = 1;

struct Fixture {
  SimulatedWorkload workload;
  Calibration calibration;
};

const Fixture& fixture(WorkloadShape shape) {
  static const auto make = [](WorkloadShape s) {
    SimulatorOptions o;
    o.seed = kSeed;
    o.shape = s;
    o.run_ns = kEvaluationRunNs;
    Fixture f{simulate_workload(o), {}};
    f.calibration = perturbed_calibration(f.workload, 0.05, kSeed + 7);
    return f;
  };
  static const Fixture steady = make(WorkloadShape::kSteadyStep);
  static const Fixture changing = make(WorkloadShape::kChangingMix);
  return shape == WorkloadShape::kSteadyStep ? steady : changing;
}

EvaluationOutcome run(WorkloadShape shape, SimulatedCounter counter, AttributionMethod method) {
  const Fixture& f = fixture(shape);
  const Series series = simulate_counter(f.workload, counter, kSeed + 11);
  return evaluate_method(f.workload, series, method, f.calibration);
}

TEST(KnownAnswer, SimulatorIsSeededAndShaped) {
  const Fixture& f = fixture(WorkloadShape::kSteadyStep);
  EXPECT_EQ(f.workload.classes.size(), 50u);
  SimulatorOptions o;
  o.seed = kSeed;
  o.run_ns = 2 * kNsPerS;
  const SimulatedWorkload a = simulate_workload(o);
  const SimulatedWorkload b = simulate_workload(o);
  ASSERT_EQ(a.timeline.spans().size(), b.timeline.spans().size());
  EXPECT_EQ(a.true_span_energy_j, b.true_span_energy_j);
  // Steps of a BERT-like length (METHODS.md §1: 58.6 ms on an H200).
  const Span& step = a.timeline.spans().front();
  EXPECT_GT(step.duration_ns(), 40 * kNsPerMs);
  EXPECT_LT(step.duration_ns(), 80 * kNsPerMs);
}

TEST(KnownAnswer, RegressDeclaresTheSteadyStepUnidentifiable) {
  const EvaluationOutcome o =
      run(WorkloadShape::kSteadyStep, SimulatedCounter::kNvml100ms, AttributionMethod::kRegress);
  EXPECT_TRUE(o.declined) << o.note;
  EXPECT_GE(o.windows, 300u);
}

TEST(KnownAnswer, CalibratedStaysWithinTenPercentOnTheSteadyStep) {
  const EvaluationOutcome o =
      run(WorkloadShape::kSteadyStep, SimulatedCounter::kNvml100ms, AttributionMethod::kCalibrated);
  EXPECT_LE(o.median_class_error, 0.10);
  EXPECT_LE(o.p90_class_error, 0.10);
}

TEST(KnownAnswer, RegressIdentifiesClassesOnFineWindowsOfAChangingMix) {
  const EvaluationOutcome o =
      run(WorkloadShape::kChangingMix, SimulatedCounter::kRapl1ms, AttributionMethod::kRegress);
  EXPECT_FALSE(o.declined) << o.note;
  EXPECT_LE(o.median_class_error, 0.02);
}

TEST(KnownAnswer, RegressIdentifiesTheChangingMixFromTheCoarseCounter) {
  const EvaluationOutcome o =
      run(WorkloadShape::kChangingMix, SimulatedCounter::kNvml100ms, AttributionMethod::kRegress);
  EXPECT_FALSE(o.declined) << o.note;
  EXPECT_GE(o.windows, 300u);
  EXPECT_LE(o.median_class_error, 0.10);
}

TEST(KnownAnswer, InterpolateResolvesOpsShorterThanTheUpdatePeriod) {
  // BERT-sized ops (tens to hundreds of µs) under a 1 ms counter: plain interpolation gives every
  // op of an update interval the interval's mean power; the refinement weighs them by the class
  // powers the counter's own intervals fit, and keeps every interval's measured energy.
  for (WorkloadShape shape : {WorkloadShape::kSteadyStep, WorkloadShape::kChangingMix}) {
    const auto refined = run(shape, SimulatedCounter::kRapl1ms, AttributionMethod::kInterpolate);
    const Fixture& f = fixture(shape);
    const Series series = simulate_counter(f.workload, SimulatedCounter::kRapl1ms, kSeed + 11);
    const auto plain =
        evaluate_method(f.workload, series, AttributionMethod::kInterpolate, f.calibration, false);
    EXPECT_LE(refined.median_class_error, 0.02) << to_string(shape);
    EXPECT_GE(refined.refined_classes, refined.classes / 2) << to_string(shape);
    EXPECT_EQ(plain.refined_classes, 0u);
    EXPECT_GT(plain.median_class_error, 0.05) << to_string(shape);
    EXPECT_LE(refined.tree_vs_measured, 1e-9) << to_string(shape);
  }
}

TEST(KnownAnswer, InterpolateWithinTwoPercentWhereTheCounterIsFine) {
  // Ops long against the 1 ms update period (durations × 64): auto calls the counter fine, and
  // interpolation is accurate with or without the refinement, which then changes only the few
  // intervals where one op ends and the next begins.
  const std::vector<DurationSweepRow> rows = run_duration_sweep(kSeed);
  ASSERT_EQ(rows.size(), 4u);
  const DurationSweepRow& longest = rows.back();
  EXPECT_EQ(longest.auto_method, AttributionMethod::kInterpolate)
      << longest.typical_span_ms << " ms";
  EXPECT_LE(longest.outcome.median_class_error, 0.02);
  EXPECT_LE(longest.plain.median_class_error, 0.02);
  EXPECT_GT(rows.front().plain.median_class_error, longest.plain.median_class_error);
  for (const DurationSweepRow& r : rows) {
    EXPECT_LT(r.outcome.median_class_error, r.plain.median_class_error) << "x" << r.duration_scale;
  }
}

TEST(KnownAnswer, InterpolateBeatsTheBaselinesOnTheFineCounter) {
  for (WorkloadShape shape : {WorkloadShape::kSteadyStep, WorkloadShape::kChangingMix}) {
    const auto interp = run(shape, SimulatedCounter::kRapl1ms, AttributionMethod::kInterpolate);
    const auto hold = run(shape, SimulatedCounter::kRapl1ms, AttributionMethod::kHold);
    const auto split = run(shape, SimulatedCounter::kRapl1ms, AttributionMethod::kTimeSplit);
    EXPECT_LT(interp.median_class_error, hold.median_class_error);
    EXPECT_LT(interp.median_class_error, split.median_class_error);
  }
}

// Issue 28's accuracy target: auto on the 1 ms counter, steady step, within 1 % per class at the
// median and 10 % at p90. It interpolates, each class weighed by whichever of its fitted and its
// calibrated power is more certain (interpolate alone: 0.86 % / 38 %; calibrated: 1.40 % / 3.8 %).
TEST(KnownAnswer, AutoPicksBySmallestExpectedErrorAndMeetsTheTargetOnTheFineCounter) {
  const EvaluationOutcome o =
      run(WorkloadShape::kSteadyStep, SimulatedCounter::kRapl1ms, AttributionMethod::kAuto);
  EXPECT_EQ(o.picked, AttributionMethod::kInterpolate);
  EXPECT_GT(o.calibrated_classes, 0u);
  EXPECT_LE(o.median_class_error, 0.01);
  EXPECT_LE(o.p90_class_error, 0.10);
  // Where nothing is refined (the 100 ms counter), the calibrated split has the smaller error.
  EXPECT_EQ(run(WorkloadShape::kSteadyStep, SimulatedCounter::kNvml100ms, AttributionMethod::kAuto)
                .picked,
            AttributionMethod::kCalibrated);
}

TEST(KnownAnswer, TreeAlwaysSumsToTheMeasuredTotal) {
  for (WorkloadShape shape : {WorkloadShape::kSteadyStep, WorkloadShape::kChangingMix}) {
    for (SimulatedCounter c : {SimulatedCounter::kRapl1ms, SimulatedCounter::kNvml100ms,
                               SimulatedCounter::kAveragedPower1s}) {
      for (AttributionMethod m : {AttributionMethod::kInterpolate, AttributionMethod::kHold,
                                  AttributionMethod::kCalibrated, AttributionMethod::kTimeSplit}) {
        const EvaluationOutcome o = run(shape, c, m);
        EXPECT_LE(o.tree_vs_measured, 0.005)
            << to_string(shape) << " " << to_string(c) << " " << to_string(m);
      }
    }
  }
}

}  // namespace
}  // namespace jouleprof::attribution

namespace jouleprof::attribution {
namespace {

// docs/uncertainty.md: the 95 % intervals hold the true class energy for at least 90 % of the
// (class, seed) pairs, for every workload, counter and method, over 20 seeds of 40 s runs: the
// table eval_attribution prints (printed here too). Where the weights were measured and the
// counter is slower than the spans (calibrated, and auto, which picks it there), the median
// half-width is at most 3× the median error, as issue 28 asks.
TEST(KnownAnswer, IntervalsHoldTheTruthForNineTenthsOfTheClassesOverTwentySeeds) {
  const std::vector<CoverageRow> rows = run_coverage_grid(1, 20, 40 * kNsPerS);
  std::cout << format_coverage_table(rows);
  ASSERT_EQ(rows.size(), 2u * 3u * 7u);
  for (const CoverageRow& r : rows) {
    const std::string method = r.plain ? "plain interp" : std::string(to_string(r.method));
    const std::string row =
        std::string(to_string(r.shape)) + ", " + std::string(to_string(r.counter)) + ", " + method;
    EXPECT_GE(r.pairs, 20u * 40u);
    EXPECT_GE(r.coverage, 0.90) << row << ": " << r.pairs << " pairs";
    const bool measured_weights =
        r.method == AttributionMethod::kCalibrated || r.method == AttributionMethod::kAuto;
    if (r.method == AttributionMethod::kCalibrated && r.counter == SimulatedCounter::kRapl1ms) {
      EXPECT_LE(r.median_half_width, 0.10) << row;  // measured weights say more
    }
    if (measured_weights && r.counter != SimulatedCounter::kRapl1ms) {
      EXPECT_LE(r.median_half_width, 3.0 * r.median_error) << row;
    }
  }
}

// On 10 s runs a reading averaged over 1 s lags the truth by a larger share of the run: without
// the averaging term calibrated weights on the averaged power covered 73–74 % of the classes
// (docs/uncertainty.md); with it every row holds at least 90 % on short runs too.
TEST(KnownAnswer, IntervalsHoldOnTenSecondRunsToo) {
  const std::vector<CoverageRow> rows = run_coverage_grid(1, 20, 10 * kNsPerS);
  std::cout << format_coverage_table(rows);
  ASSERT_EQ(rows.size(), 2u * 3u * 7u);
  for (const CoverageRow& r : rows) {
    const std::string method = r.plain ? "plain interp" : std::string(to_string(r.method));
    EXPECT_GE(r.coverage, 0.90) << to_string(r.shape) << ", " << to_string(r.counter) << ", "
                                << method << ": " << r.pairs << " pairs";
  }
}

}  // namespace
}  // namespace jouleprof::attribution
