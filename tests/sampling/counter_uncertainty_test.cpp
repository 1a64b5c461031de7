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
