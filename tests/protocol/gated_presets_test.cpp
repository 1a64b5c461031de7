#include <gtest/gtest.h>

#include "jouleprof/gated_measurement.hpp"

namespace jouleprof {
namespace {

TEST(GatedPreset, FecomIsThePublishedProtocolAndEveryPresetNamesItself) {
  const GatedOptions fecom = gated_preset(GatedPreset::kFecom);
  EXPECT_EQ(fecom.interval_ns, GatedOptions{}.interval_ns);
  EXPECT_EQ(fecom.repetitions, 10u);
  EXPECT_EQ(fecom.tail_wait_ns, 30 * kNsPerS);
  for (GatedPreset p :
       {GatedPreset::kFecom, GatedPreset::kStandard, GatedPreset::kQuick, GatedPreset::kKernel}) {
    const GatedOptions o = gated_preset(p);
    EXPECT_EQ(o.preset, to_string(p));
    EXPECT_EQ(gated_preset_from_string(to_string(p)), p);
    EXPECT_EQ(o.cpu_max_cv, kFecomCpuMaxCv) << "presets trade time, not FECoM's thresholds";
  }
  EXPECT_FALSE(gated_preset_from_string("fast"));
}

TEST(GatedPreset, QuickResolvesAboutTwoPercentPerRepetition) {
  EXPECT_EQ(gated_preset(GatedPreset::kQuick).min_counter_updates, 50u);
}

TEST(GatedEstimate, FecomTakesAtLeastFiftySecondsPerRepetition) {
  // RAPL's 1 ms counter, a call of unknown length.
  const GatedEstimate e = estimate_gated(gated_preset(GatedPreset::kFecom), kNsPerMs);
  // The gate's 21 intervals (10.5 s) fit in one 20 s check, as does the 30 s tail's idle window.
  EXPECT_EQ(e.first_gate_ns, 20 * kNsPerS);
  EXPECT_EQ(e.gate_ns, 20 * kNsPerS);
  EXPECT_EQ(e.window_ns, 10 * kNsPerMs);
  EXPECT_EQ(e.tail_ns, 30 * kNsPerS);
  EXPECT_EQ(e.total_ns, 10 * e.repetition_ns());
  EXPECT_GE(e.repetition_ns(), 50 * kNsPerS);
  EXPECT_EQ(e.describe(),
            "10 repetitions × ≥ 50.0 s (gate 20.0 s + calls ≥ 10.0 ms + call + tail 30.0 s)");
}

TEST(GatedEstimate, TheFirstGateWaitsForItsWindowToFill) {
  GatedOptions o = gated_preset(GatedPreset::kQuick);  // 11 intervals of 100 ms, 1 s checks
  const GatedEstimate e = estimate_gated(o, kNsPerMs, 20 * kNsPerMs);
  EXPECT_EQ(e.warmup_ns, 20 * kNsPerMs);
  EXPECT_EQ(e.first_gate_ns, 2 * kNsPerS) << "1.1 s of data needed, 20 ms there: two checks";
  EXPECT_EQ(e.gate_ns, kNsPerS) << "the 1 s tail leaves 0.1 s to wait: one check";
  EXPECT_EQ(e.window_ns, 50 * kNsPerMs + 20 * kNsPerMs) << "50 updates, overshot by one call";
  EXPECT_EQ(e.total_ns,
            e.warmup_ns + e.first_gate_ns + e.window_ns + e.tail_ns + 2 * e.repetition_ns());
  // A call longer than the K updates sets the window.
  EXPECT_EQ(estimate_gated(o, kNsPerMs, kNsPerS).window_ns, 2 * kNsPerS);
}

TEST(GatedEstimate, WithoutCheckPeriodTheGateWaitsOnlyForMissingData) {
  GatedOptions o = gated_preset(GatedPreset::kQuick);
  o.check_period_ns = 0;
  o.tail_wait_ns = 2 * kNsPerS;
  EXPECT_EQ(estimate_gated(o, kNsPerMs).gate_ns, 0);
}

TEST(SlowestNominalPeriod, TakesTheSlowestEnergyChannel) {
  Channel rapl;
  rapl.kind = ChannelKind::kEnergyCounter;
  rapl.nominal_period_ns = kNsPerMs;
  Channel nvml = rapl;
  nvml.nominal_period_ns = 100 * kNsPerMs;
  Channel temperature = rapl;
  temperature.kind = ChannelKind::kTemperature;
  temperature.nominal_period_ns = kNsPerS;
  EXPECT_EQ(slowest_nominal_period_ns({rapl, nvml, temperature}, 7), 100 * kNsPerMs);
  EXPECT_EQ(slowest_nominal_period_ns({temperature}, 7), 7);
}

}  // namespace
}  // namespace jouleprof
