#include "sampling/counter_uncertainty.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "jouleprof/channel_summary.hpp"

namespace jouleprof {
namespace {

// A counter of `unit_j` steps updated every `period_ns` at `watts` (rounded down to the unit).
Series counter(std::string source, Provenance provenance, double watts, TimeNs period_ns,
               double unit_j, TimeNs run_ns = 2 * kNsPerS) {
  Channel c;
  c.id = "c";
  c.source = std::move(source);
  c.kind = ChannelKind::kEnergyCounter;
  c.provenance = provenance;
  Series s(c);
  for (TimeNs t = 0; t <= run_ns; t += period_ns) {
    EXPECT_TRUE(s.append(t, unit_j * std::floor(watts * ns_to_s(t) / unit_j)).ok());
  }
  return s;
}

const UncertaintyPart* find(const std::vector<UncertaintyPart>& parts, UncertaintyTerm term) {
  const auto it = std::find_if(parts.begin(), parts.end(),
                               [&](const UncertaintyPart& p) { return p.term == term; });
  return it == parts.end() ? nullptr : &*it;
}

TEST(CounterUncertainty, NvmlCarriesItsDocumentedFivePerCentAndTheSimulatorNone) {
  const Series nvml = counter("nvml", Provenance::kMeasured, 100.0, 100 * kNsPerMs, 1e-3);
  const auto parts = channel_uncertainty(nvml, 0, 2 * kNsPerS, 200.0);
  ASSERT_NE(find(parts, UncertaintyTerm::kGain), nullptr);
  EXPECT_DOUBLE_EQ(find(parts, UncertaintyTerm::kGain)->half_width_j, 10.0);

  const Series simulated =
      counter("simulated", Provenance::kSimulated, 100.0, 100 * kNsPerMs, 1e-3);
  EXPECT_EQ(find(channel_uncertainty(simulated, 0, 2 * kNsPerS, 200.0), UncertaintyTerm::kGain),
            nullptr);
}

TEST(CounterUncertainty, AnEstimateCarriesItsModelErrorNotAGain) {
  const Series estimate = counter("cpu-estimate", Provenance::kEstimated, 50.0, kNsPerS, 1e-6);
  const auto parts = channel_uncertainty(estimate, 0, 2 * kNsPerS, 100.0);
  EXPECT_EQ(find(parts, UncertaintyTerm::kGain), nullptr);
  ASSERT_NE(find(parts, UncertaintyTerm::kEstimateModel), nullptr);
  EXPECT_DOUBLE_EQ(find(parts, UncertaintyTerm::kEstimateModel)->half_width_j, 30.0);
}

TEST(CounterUncertainty, TheUnitIsWhatTheIncrementsDifferByNotAnUpdatesEnergy) {
  // 61 µJ units, 1 ms updates at 30 W: increments of 491 or 492 units (30 mJ), which differ by one.
  const Series rapl = counter("rapl-powercap", Provenance::kMeasured, 30.0, kNsPerMs, 61e-6);
  const auto parts = channel_uncertainty(rapl, 0, 2 * kNsPerS, 60.0);
  ASSERT_NE(find(parts, UncertaintyTerm::kQuantisation), nullptr);
  EXPECT_NEAR(find(parts, UncertaintyTerm::kQuantisation)->half_width_j, 61e-6, 1e-9);
  // Alike increments show no unit: no term rather than an update's energy passed off as one.
  Channel c;
  c.id = "steady";
  c.source = "simulated";
  c.provenance = Provenance::kSimulated;
  Series steady(c);
  for (int i = 0; i <= 100; ++i) ASSERT_TRUE(steady.append(i * kNsPerMs, 0.04 * i).ok());
  EXPECT_EQ(
      find(channel_uncertainty(steady, 0, 100 * kNsPerMs, 4.0), UncertaintyTerm::kQuantisation),
      nullptr);
}

TEST(CounterUncertainty, AWindowCutThroughAnUpdateIntervalHasEdgesAWindowOnTheUpdatesNone) {
  Channel c;
  c.id = "c";
  c.source = "simulated";
  c.provenance = Provenance::kSimulated;
  Series s(c);
  double e = 0.0;  // 100 ms updates at 50, 100, 150, 50, … W
  for (int i = 0; i <= 20; ++i) {
    ASSERT_TRUE(s.append(i * 100 * kNsPerMs, e).ok());
    e += 50.0 * (1 + i % 3) * 0.1;
  }
  EXPECT_EQ(find(channel_uncertainty(s, 0, 2 * kNsPerS, 200.0), UncertaintyTerm::kWindowEdges),
            nullptr);
  // Half of a 100 W interval at each end: its inside half drew between 50 W and 150 W, bounded by
  // the whole interval's 10 J: 2.5 to 7.5 J, a half-width of 2.5 J at each end.
  const auto cut = channel_uncertainty(s, 150 * kNsPerMs, 1650 * kNsPerMs, 150.0);
  ASSERT_NE(find(cut, UncertaintyTerm::kWindowEdges), nullptr);
  EXPECT_NEAR(find(cut, UncertaintyTerm::kWindowEdges)->half_width_j, std::sqrt(2.0) * 2.5, 1e-9);
  const PowerRange range = observed_power_range(s, 0, 2 * kNsPerS);
  EXPECT_NEAR(range.low_w, 50.0, 1e-9);
  EXPECT_NEAR(range.high_w, 150.0, 1e-9);
  // An interval at the lowest power leaves its parts no freedom.
  EXPECT_EQ(find(channel_uncertainty(s, 50 * kNsPerMs, 2 * kNsPerS, 195.0),
                 UncertaintyTerm::kWindowEdges),
            nullptr);
}

// Power readings every 100 ms between 100 and 300 W, averaged over `averaging_ns` (0: an
// instant's).
Series averaged_power(TimeNs averaging_ns) {
  Channel c;
  c.id = "p";
  c.source = "simulated";
  c.kind = ChannelKind::kPower;
  c.provenance = Provenance::kSimulated;
  c.nominal_period_ns = 100 * kNsPerMs;
  c.averaging_ns = averaging_ns;
  Series s(c);
  for (int i = 0; i <= 40; ++i) EXPECT_TRUE(s.append(i * 100 * kNsPerMs, i < 20 ? 100 : 300).ok());
  return s;
}

// A 1 s average lags the truth: over a window at least 1 s long it leaves out half a second of
// the difference between its readings at the ends, give or take a quarter of the range at each
// end (and never more than half a second of the range); a shorter window has only the bound,
// (b − a)(1 − (b − a)/2 s) of the range either way. An instant's reading lags nothing.
TEST(CounterUncertainty, AnAveragedPowerLeavesOutWhatItLagsBehind) {
  EXPECT_EQ(find(channel_uncertainty(averaged_power(0), 0, 4 * kNsPerS, 800.0),
                 UncertaintyTerm::kAveraging),
            nullptr);
  const Series s = averaged_power(kNsPerS);
  // Readings 100 W at 0 s and 300 W at 4 s: 0.5 s × 200 W = 100 J left out, ± 0.5 s × 200 W / 2;
  // at most 0.5 s × 200 W. The interval keeps its figure: 0 to 100 J missing.
  const auto whole = channel_uncertainty(s, 0, 4 * kNsPerS, 800.0);
  const UncertaintyPart* lag = find(whole, UncertaintyTerm::kAveraging);
  ASSERT_NE(lag, nullptr);
  EXPECT_DOUBLE_EQ(lag->half_width_j, 0.0);
  EXPECT_NEAR(lag->missing_low_j, 0.0, 1e-9);
  EXPECT_NEAR(lag->missing_high_j, 100.0, 1e-9);
  // 400 ms: 0.4 × (1 − 0.2) = 0.32 s of a 200 W range, either sign.
  const auto short_window = channel_uncertainty(s, 1800 * kNsPerMs, 2200 * kNsPerMs, 80.0);
  lag = find(short_window, UncertaintyTerm::kAveraging);
  ASSERT_NE(lag, nullptr);
  EXPECT_NEAR(lag->missing_low_j, -0.32 * 200.0, 1e-9);
  EXPECT_NEAR(lag->missing_high_j, 0.32 * 200.0, 1e-9);
  EXPECT_TRUE(repeats_alike(UncertaintyTerm::kAveraging));  // a lag, the same in every window
}

TEST(CounterUncertainty, AGapMayHoldAnythingInTheRangeAndTheSummaryIntervalSaysSo) {
  Series s = counter("nvml", Provenance::kMeasured, 100.0, 100 * kNsPerMs, 1e-3);
  s.add_gap(Gap{kNsPerS, kNsPerS + 200 * kNsPerMs, "failed read"});
  const auto parts = channel_uncertainty(s, 0, 2 * kNsPerS, 200.0);
  const UncertaintyPart* gap = find(parts, UncertaintyTerm::kGaps);
  ASSERT_NE(gap, nullptr);
  EXPECT_NEAR(gap->missing_low_j, 100.0 * 0.2, 0.1);
  EXPECT_NEAR(gap->missing_high_j, 100.0 * 0.2, 0.1);

  const ChannelSummary summary = summarize_channel(s, 0, 2 * kNsPerS, std::nullopt);
  ASSERT_TRUE(summary.band.has_value());
  EXPECT_TRUE(summary.band->contains(summary.energy_j));
  EXPECT_GT(summary.band->high_j, summary.energy_j + 19.0);
  EXPECT_FALSE(summary.uncertainty.empty());
}

}  // namespace
}  // namespace jouleprof
