// The refinement's read-delay search, on a counter whose timestamps are late by a known delay.
#include "attribution/refined_interpolation.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "jouleprof/series.hpp"

namespace jouleprof::attribution {
namespace {

constexpr TimeNs kPeriodNs = kNsPerMs;
constexpr TimeNs kReadDelayNs = 40'000;
constexpr double kIdlePowerW = 50.0;
constexpr double kClassPowerW[] = {100.0, 250.0, 400.0};

struct Case {
  std::vector<Segment> segments;
  Series counter{Channel{"rapl:pkg", "test", "cpu0", "package", ChannelKind::kEnergyCounter,
                         Provenance::kMeasured, "", "", kPeriodNs, 0}};
};

// Ops of 20–200 µs with short idle gaps for 20 s; the counter updates every 1 ms with the exact
// energy so far, and each update is read kReadDelayNs late.
Case make_case() {
  Case c;
  std::mt19937_64 rng(5);
  std::uniform_int_distribution<TimeNs> duration(20'000, 200'000);
  std::uniform_int_distribution<TimeNs> gap(0, 10'000);
  std::uniform_int_distribution<std::uint32_t> klass(0, 2);
  const TimeNs run_ns = 20 * kNsPerS;
  TimeNs t = kPeriodNs;  // every segment lies between the first and the last reading
  for (std::uint32_t span = 0; t < run_ns; ++span) {
    t += gap(rng);
    const TimeNs d = duration(rng);
    c.segments.push_back(Segment{t, std::min(t + d, run_ns), span, klass(rng), 2.0});
    t += d;
  }
  c.segments.back().end_ns = std::min(c.segments.back().end_ns, run_ns);
  const auto energy_until = [&](TimeNs u) {  // ∫ power from 0 to u
    double e = kIdlePowerW * ns_to_s(u);
    for (const Segment& s : c.segments) {
      if (s.begin_ns >= u) break;
      e += kClassPowerW[s.klass] * ns_to_s(std::min(s.end_ns, u) - s.begin_ns);
    }
    return e;
  };
  double e = 0.0;
  std::size_t next = 0;
  TimeNs done_until = 0;
  for (TimeNs u = 0; u <= run_ns; u += kPeriodNs) {
    // Incremental form of energy_until(u): only the segments since the last update.
    e += kIdlePowerW * ns_to_s(u - done_until);
    for (; next < c.segments.size() && c.segments[next].end_ns <= u; ++next) {
      const Segment& s = c.segments[next];
      e += kClassPowerW[s.klass] * ns_to_s(s.end_ns - std::max(s.begin_ns, done_until));
    }
    if (next < c.segments.size() && c.segments[next].begin_ns < u) {
      const Segment& s = c.segments[next];
      e += kClassPowerW[s.klass] * ns_to_s(u - std::max(s.begin_ns, done_until));
    }
    done_until = u;
    if (u % kNsPerS == 0) {
      EXPECT_NEAR(e, energy_until(u), 1e-6) << u;  // checks the increments
    }
    EXPECT_TRUE(c.counter.append(u + kReadDelayNs, e).ok());
  }
  return c;
}

Refinement refine(const std::vector<Segment>& segments, const Series& counter) {
  const EnergyCurve curve = EnergyCurve::from_series(counter, IntegrationRule::kTrapezoid);
  const std::vector<TimeNs>& edges = curve.knots_ns();
  const SweepResult as_read = sweep_segments(segments, &curve, edges);
  return refine_interpolation(segments, curve, edges, as_read, 3, RefinementLimits{}, PowerRange{});
}

TEST(RefinedInterpolation, FindsTheCountersReadDelay) {
  const Case c = make_case();
  const Refinement r = refine(c.segments, c.counter);
  ASSERT_TRUE(r.applied) << r.why_not;
  EXPECT_EQ(r.refined_classes, 3u);
  // Golden section narrows the 100 µs range to 2 µs.
  EXPECT_NEAR(static_cast<double>(r.read_delay_ns), static_cast<double>(kReadDelayNs), 3'000.0);
  EXPECT_NEAR(r.idle_power_w, kIdlePowerW, 0.05 * kIdlePowerW);
}

TEST(RefinedInterpolation, SegmentOrderChangesNothing) {
  const Case c = make_case();
  const Refinement sorted = refine(c.segments, c.counter);
  std::vector<Segment> shuffled = c.segments;
  std::shuffle(shuffled.begin(), shuffled.end(), std::mt19937_64(9));
  const Refinement r = refine(shuffled, c.counter);
  ASSERT_TRUE(r.applied) << r.why_not;
  EXPECT_EQ(r.read_delay_ns, sorted.read_delay_ns);
  for (std::size_t i = 0; i < shuffled.size(); ++i) {
    const std::uint32_t span = shuffled[i].span;  // segment index == span in make_case
    EXPECT_NEAR(r.segment_energy_j[i], sorted.segment_energy_j[span],
                1e-9 * std::max(1.0, sorted.segment_energy_j[span]));
  }
}

// Known powers (a calibration's) stand in for a class's fitted one only where they are more
// certain; a known power of unknown error never does.
TEST(RefinedInterpolation, AKnownPowerReplacesTheFitOnlyWhereItIsMoreCertain) {
  const Case c = make_case();
  const EnergyCurve curve = EnergyCurve::from_series(c.counter, IntegrationRule::kTrapezoid);
  const std::vector<TimeNs>& edges = curve.knots_ns();
  const SweepResult as_read = sweep_segments(c.segments, &curve, edges);
  KnownWeights known;
  known.by_class = {PieceWeight{kIdlePowerW + kClassPowerW[0], 1e-6},  // more certain than a fit
                    PieceWeight{kIdlePowerW + kClassPowerW[1], 0.5},   // less certain
                    PieceWeight{kIdlePowerW + kClassPowerW[2], kAnywhereInRange}};
  const Refinement r = refine_interpolation(c.segments, curve, edges, as_read, 3,
                                            RefinementLimits{}, PowerRange{}, &known);
  ASSERT_TRUE(r.applied) << r.why_not;
  EXPECT_EQ(r.known_classes, 1u);
  EXPECT_EQ(r.refined_classes, 2u);
  // Class 0 weighs its exact power: its spans' energies stay as close to the truth as the fit's.
  const Refinement fitted = refine(c.segments, c.counter);
  double with_known = 0.0;
  double with_fit = 0.0;
  double truth = 0.0;
  for (std::size_t i = 0; i < c.segments.size(); ++i) {
    if (c.segments[i].klass != 0) continue;
    with_known += r.segment_energy_j[i];
    with_fit += fitted.segment_energy_j[i];
    truth +=
        (kIdlePowerW + kClassPowerW[0]) * ns_to_s(c.segments[i].end_ns - c.segments[i].begin_ns);
  }
  EXPECT_NEAR(with_known, truth, 0.02 * truth);
  EXPECT_NEAR(with_fit, truth, 0.02 * truth);
}

}  // namespace
}  // namespace jouleprof::attribution
