// The steps of an attributed run as repetitions (attribution/step_energy.hpp): the energy per
// step and its Student-t interval, the tree's spread over the steps, and, on the simulator's known
// answers, how often the interval holds the true energy of a step.
#include "attribution/step_energy.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "jouleprof/attribution.hpp"
#include "testing/workload_simulator.hpp"

namespace jouleprof {
namespace {

Series steady_counter(TimeNs end_ns, double power_w) {
  Series s(Channel{"rapl:pkg", "test", "cpu0", "package", ChannelKind::kEnergyCounter,
                   Provenance::kMeasured, "", "", kNsPerMs, 0});
  for (TimeNs t = 0; t <= end_ns; t += kNsPerMs)
    EXPECT_TRUE(s.append(t, power_w * ns_to_s(t)).ok());
  return s;
}

// `steps` steps named "step", 40 ms apart, the i-th lasting 20 + 5·i ms (on a steady 50 W, so
// that the steps' energies spread); each holds an op "matmul" of 10 ms, and the first steps
// (those below `with_softmax`) a "softmax" of 5 ms too.
Profile stepped_profile(std::size_t steps, std::size_t with_softmax) {
  Profile p;
  const TimeNs end_ns = static_cast<TimeNs>(steps) * 40 * kNsPerMs + 10 * kNsPerMs;
  p.series.push_back(steady_counter(end_ns, 50.0));
  Timeline& tl = p.timeline;
  const auto track = tl.add_track(Track{TrackKind::kCpuThread, "t", "cpu0"});
  for (std::size_t i = 0; i < steps; ++i) {
    const TimeNs begin = static_cast<TimeNs>(i) * 40 * kNsPerMs + 10 * kNsPerMs;
    const TimeNs length = (20 + 5 * static_cast<TimeNs>(i % 4)) * kNsPerMs;
    const std::uint32_t step = tl.add_span(Span{begin, begin + length, track, tl.intern("step"),
                                                kNoIndex, kNoIndex, SpanCategory::kStep});
    tl.add_span(Span{begin, begin + 10 * kNsPerMs, track, tl.intern("matmul"), step, kNoIndex,
                     SpanCategory::kOp});
    if (i < with_softmax) {
      tl.add_span(Span{begin + 10 * kNsPerMs, begin + 15 * kNsPerMs, track, tl.intern("softmax"),
                       step, kNoIndex, SpanCategory::kOp});
    }
  }
  p.meta.begin_ns = 0;
  p.meta.end_ns = end_ns;
  return p;
}

TEST(StepEnergy, TheStepNodeAndItsChildrenGetTheSpreadOverTheSteps) {
  Profile p = stepped_profile(4, 2);
  ASSERT_TRUE(attribute_profile(p, AttributionOptions{}).ok());
  const ProfileNode* step = p.tree->child("step");
  ASSERT_NE(step, nullptr);
  EXPECT_EQ(step->calls, 4U);
  ASSERT_TRUE(step->energy_stats.has_value());
  EXPECT_EQ(step->energy_stats->n, 4U);
  EXPECT_NEAR(step->energy_stats->mean, step->energy_j / 4.0, 1e-12);
  // The node's own figure keeps the attribution's interval: no repetition term in it.
  ASSERT_TRUE(step->band.has_value());
  EXPECT_NE(step->band->dominant, UncertaintyTerm::kRepetition);
  // softmax ran in two steps of four: absent, it counts 0 J in the other two.
  const ProfileNode* softmax = step->child("softmax");
  ASSERT_NE(softmax, nullptr);
  ASSERT_TRUE(softmax->energy_stats.has_value());
  EXPECT_EQ(softmax->energy_stats->n, 4U);
  EXPECT_NEAR(softmax->energy_stats->mean, softmax->energy_j / 4.0, 1e-12);
  EXPECT_NEAR(softmax->energy_stats->median, softmax->energy_j / 4.0, 1e-12);
  EXPECT_GT(softmax->energy_stats->stdev, 0.0);
  // The run's figures are no repetition.
  EXPECT_FALSE(p.tree->energy_stats.has_value());
}

TEST(StepEnergy, TheEnergyPerStepIsTheStepsMeanWithItsStudentInterval) {
  Profile p = stepped_profile(4, 2);
  ASSERT_TRUE(attribute_profile(p, AttributionOptions{}).ok());
  ASSERT_TRUE(p.energy_per_step.has_value());
  const RepeatedEnergy& per_step = *p.energy_per_step;
  EXPECT_EQ(per_step.stats.n, 4U);
  EXPECT_NEAR(per_step.stats.mean, p.tree->child("step")->energy_j / 4.0, 1e-12);
  EXPECT_TRUE(per_step.band.contains(per_step.stats.mean));
  // Steps of 20 to 35 ms spread far more than the counter errs: the Student-t term dominates.
  EXPECT_EQ(per_step.band.dominant, UncertaintyTerm::kRepetition);
  EXPECT_LE(per_step.band.low_j, per_step.stats.ci95_low + 1e-12);
  EXPECT_GE(per_step.band.high_j, per_step.stats.ci95_high - 1e-12);
  // Four steps are few: one warning, naming the remedy.
  const auto few = std::count_if(p.warnings.begin(), p.warnings.end(), [](const std::string& w) {
    return w.find("only 4 steps") != std::string::npos;
  });
  EXPECT_EQ(few, 1);
  EXPECT_NE(p.warnings.back().find("--steps"), std::string::npos);
}

TEST(StepEnergy, EnoughStepsGiveNoWarning) {
  Profile p = stepped_profile(attribution::kFewSteps, 0);
  ASSERT_TRUE(attribute_profile(p, AttributionOptions{}).ok());
  ASSERT_TRUE(p.energy_per_step.has_value());
  for (const std::string& w : p.warnings) EXPECT_EQ(w.find("steps: the energy per step"), w.npos);
}

TEST(StepEnergy, OneStepIsNoRepetition) {
  Profile p = stepped_profile(1, 1);
  ASSERT_TRUE(attribute_profile(p, AttributionOptions{}).ok());
  EXPECT_FALSE(p.energy_per_step.has_value());
  const ProfileNode* step = p.tree->child("step");
  ASSERT_NE(step, nullptr);
  EXPECT_FALSE(step->energy_stats.has_value());
  EXPECT_FALSE(step->child("matmul")->energy_stats.has_value());
}

// The known answer: the simulator's steady step (one GPU stream, known power per op) on a 1 ms
// RAPL-like counter. Per seed, the truth is the mean over the run's steps of each step's true
// energy (its spans' and its idle gaps'); the attributed steps' mean interval should hold it in
// nine runs in ten.
struct StepTrial {
  double mean_j = 0.0;
  double truth_j = 0.0;
  EnergyBand band;
  std::uint32_t steps = 0;
};

StepTrial step_trial(std::uint64_t seed, TimeNs period_ns) {
  attribution::SimulatorOptions o;
  o.seed = seed;
  o.run_ns = 2 * kNsPerS;
  const attribution::SimulatedWorkload w = attribution::simulate_workload(o);
  Profile p;
  p.series.push_back(period_ns == kNsPerMs ? attribution::simulate_rapl_counter(w, seed)
                                           : attribution::simulate_nvml_counter(w, seed));
  p.timeline = w.timeline;
  p.meta.begin_ns = w.begin_ns;
  p.meta.end_ns = w.end_ns;
  StepTrial trial;
  const Status s = attribute_profile(p, AttributionOptions{});
  EXPECT_TRUE(s.ok()) << s.error().message();
  if (!s.ok() || !p.energy_per_step) return trial;
  // Each span's step: its nearest ancestor of category kStep.
  const std::vector<Span>& spans = p.timeline.spans();
  double truth_j = 0.0;
  std::uint32_t steps = 0;
  for (std::size_t i = 0; i < spans.size(); ++i) {
    std::uint32_t up = static_cast<std::uint32_t>(i);
    while (up != kNoIndex && spans[up].category != SpanCategory::kStep) up = spans[up].parent;
    if (up != kNoIndex) truth_j += w.true_span_energy_j[i];
    if (spans[i].category == SpanCategory::kStep) ++steps;
  }
  trial.truth_j = truth_j / steps;
  trial.mean_j = p.energy_per_step->stats.mean;
  trial.band = p.energy_per_step->band;
  trial.steps = p.energy_per_step->stats.n;
  return trial;
}

void expect_coverage(TimeNs period_ns, const char* counter) {
  constexpr std::uint64_t kSeeds = 50;
  std::uint64_t covered = 0;
  std::vector<double> half_widths;
  std::vector<double> errors;
  std::uint32_t steps = 0;
  for (std::uint64_t seed = 1; seed <= kSeeds; ++seed) {
    const StepTrial t = step_trial(seed, period_ns);
    ASSERT_GT(t.steps, 1U) << "seed " << seed;
    steps = t.steps;
    if (t.band.contains(t.truth_j)) ++covered;
    half_widths.push_back(t.band.half_width_j() / t.truth_j);
    errors.push_back(std::abs(t.mean_j - t.truth_j) / t.truth_j);
  }
  std::sort(half_widths.begin(), half_widths.end());
  std::sort(errors.begin(), errors.end());
  const double coverage = static_cast<double>(covered) / static_cast<double>(kSeeds);
  std::cout << fmt::format(
      "{}: {} of {} seeds covered ({:.1f} %), {} steps a run, median ± {:.2f} %, median error "
      "{:.2f} %\n",
      counter, covered, kSeeds, 100.0 * coverage, steps, 100.0 * half_widths[kSeeds / 2],
      100.0 * errors[kSeeds / 2]);
  EXPECT_GE(coverage, 0.90);
}

TEST(StepEnergy, TheMeanStepsIntervalHoldsTheTrueStepEnergyInNineRunsInTenOnA1msCounter) {
  expect_coverage(kNsPerMs, "1 ms counter");
}

TEST(StepEnergy, TheMeanStepsIntervalHoldsTheTrueStepEnergyInNineRunsInTenOnA100msCounter) {
  expect_coverage(100 * kNsPerMs, "100 ms counter");
}

}  // namespace
}  // namespace jouleprof
