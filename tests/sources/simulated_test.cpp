#include "sources/simulated.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "sources/backends.hpp"

namespace jouleprof {
namespace {

SourceOptions simulate(std::map<std::string, std::string> settings) {
  SourceOptions options;
  options.settings = std::move(settings);
  return options;
}

TEST(PowerProfile, StepsAndRampsIntegrateExactly) {
  Result<PowerProfile> p = PowerProfile::parse("20:1;80:2;80->20:1.5;30", false);
  ASSERT_TRUE(p.ok()) << p.error().message();
  EXPECT_DOUBLE_EQ(p->power_w(0.5), 20.0);
  EXPECT_DOUBLE_EQ(p->power_w(2.0), 80.0);
  EXPECT_DOUBLE_EQ(p->power_w(3.75), 50.0);  // half-way down the ramp
  EXPECT_DOUBLE_EQ(p->power_w(100.0), 30.0);
  // 20 + 160 + 75 (ramp mean 50 W over 1.5 s) + 30 × 2.5
  EXPECT_NEAR(p->energy_between_j(0.0, 7.0), 20.0 + 160.0 + 75.0 + 75.0, 1e-9);
  EXPECT_NEAR(p->energy_between_j(3.0, 3.75), (80.0 + 50.0) / 2 * 0.75, 1e-9);
}

TEST(PowerProfile, RepeatingProfileStartsOver) {
  Result<PowerProfile> p = PowerProfile::parse("10:1;30:1", true);
  ASSERT_TRUE(p.ok());
  EXPECT_DOUBLE_EQ(p->power_w(2.5), 10.0);
  EXPECT_NEAR(p->energy_between_j(0.0, 10.0), 200.0, 1e-9);
  EXPECT_NEAR(p->energy_between_j(1.5, 4.5), 15.0 + 10.0 + 30.0 + 5.0, 1e-9);
}

TEST(PowerProfile, FiniteProfileHoldsItsLastValue) {
  Result<PowerProfile> p = PowerProfile::parse("0->40:2", false);
  ASSERT_TRUE(p.ok());
  EXPECT_NEAR(p->energy_between_j(0.0, 3.0), 40.0 + 40.0, 1e-9);
}

TEST(PowerProfile, BadTextNamesSegmentAndValue) {
  for (const char* text : {"", "20:1;;30", "abc", "20:-1", "10->20", "10;20:1", "-5"}) {
    Result<PowerProfile> p = PowerProfile::parse(text, false);
    ASSERT_FALSE(p.ok()) << text;
    EXPECT_NE(p.error().message().find("simulate.profile"), std::string::npos)
        << p.error().message();
  }
  EXPECT_FALSE(PowerProfile::parse("10:1;20", true).ok());  // an open segment cannot repeat
}

TEST(SimulationSettings, KeysAreParsedAndCheckedWithNames) {
  Result<SimulationSettings> s = parse_simulation_settings({{"simulate.profile", "5:1;15"},
                                                            {"simulate.noise_w", "2"},
                                                            {"simulate.seed", "7"},
                                                            {"simulate.update_period_ms", "100"},
                                                            {"simulate.average_window_ms", "1000"},
                                                            {"simulate.wrap_j", "500"},
                                                            {"simulate.channels", "energy,power"}});
  ASSERT_TRUE(s.ok()) << s.error().message();
  EXPECT_EQ(s->update_period_ns, 100 * kNsPerMs);
  EXPECT_EQ(s->average_window_ns, kNsPerS);
  EXPECT_EQ(s->seed, 7U);
  EXPECT_EQ(s->channels, SimulatedChannels::kEnergyAndPower);

  Result<SimulationSettings> bad =
      parse_simulation_settings({{"simulate.watts", "5"}, {"simulate.noise_w", "x"}});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message().find("simulate.noise_w"), std::string::npos);
  EXPECT_FALSE(
      parse_simulation_settings({{"simulate.watts", "5"}, {"simulate.profile", "5"}}).ok());
  EXPECT_FALSE(
      parse_simulation_settings({{"simulate.watts", "5"}, {"simulate.channels", "both"}}).ok());
}

TEST(SimulatedSource, AlwaysLabelledSimulatedAndNested) {
  auto source = make_simulated_source(
      simulate({{"simulate.watts", "50"}, {"simulate.channels", "energy,power"}}));
  ASSERT_TRUE(source->availability().available);
  ASSERT_EQ(source->channels().size(), 2U);
  for (const Channel& c : source->channels()) {
    EXPECT_EQ(c.provenance, Provenance::kSimulated);
    EXPECT_NE(c.provenance_detail.find("simulated"), std::string::npos);
  }
  EXPECT_EQ(source->channels()[0].kind, ChannelKind::kEnergyCounter);
  EXPECT_TRUE(source->channels()[0].is_top_level());
  EXPECT_EQ(source->channels()[1].parent_id, source->channels()[0].id);
}

// The counter follows the real monotonic clock: between two reads it advances by the profile's
// integral over the updates that fell in between (within one update period at each end).
TEST(SimulatedSource, CounterFollowsMonotonicTime) {
  auto source = make_simulated_source(simulate({{"simulate.watts", "50"}}));
  std::vector<Reading> r(1);
  source->read(r);
  const Reading first = r[0];
  const TimeNs until = first.t_ns + 30 * kNsPerMs;
  while (monotonic_now_ns() < until) {
  }
  source->read(r);
  ASSERT_TRUE(r[0].ok);
  const double expected = 50.0 * ns_to_s(r[0].t_ns - first.t_ns);
  EXPECT_NEAR(r[0].value - first.value, expected, 2 * 50.0 * 1e-3);
}

// The origin recorded in the provenance detail is the one the counter runs from: a reader of the
// profile recomputes the ground truth from it.
TEST(SimulatedSource, TheOriginReadsBackFromTheProvenanceDetail) {
  const TimeNs before = monotonic_now_ns();
  auto source = make_simulated_source(simulate({{"simulate.watts", "50"}}));
  const TimeNs after = monotonic_now_ns();
  ASSERT_EQ(source->channels().size(), 1U);
  const std::optional<TimeNs> origin = simulated_origin_ns(source->channels()[0]);
  ASSERT_TRUE(origin.has_value()) << source->channels()[0].provenance_detail;
  EXPECT_GE(*origin, before);
  EXPECT_LE(*origin, after);
  std::vector<Reading> r(1);
  source->read(r);
  EXPECT_NEAR(r[0].value, 50.0 * ns_to_s(r[0].t_ns - *origin), 50.0 * 1e-3);  // one update

  Channel other = source->channels()[0];
  other.source = "rapl";
  EXPECT_FALSE(simulated_origin_ns(other).has_value());
  other.source = "simulated";
  other.provenance_detail = "simulated: origin_ns=abc";
  EXPECT_FALSE(simulated_origin_ns(other).has_value());
}

SimulationSettings settings_of(std::map<std::string, std::string> keys) {
  Result<SimulationSettings> s = parse_simulation_settings(keys);
  EXPECT_TRUE(s.ok()) << s.error().message();
  return s.ok() ? std::move(s).value() : SimulationSettings{};
}

TEST(SimulatedCounter, UpdatesCarryTheProfileIntegral) {
  const SimulationSettings s =
      settings_of({{"simulate.profile", "10:1;0->40:1"}, {"simulate.update_period_ms", "100"}});
  SimulatedCounter counter(s);
  counter.advance_to(10);
  EXPECT_NEAR(counter.read_unwrapped_j(), 10.0, 1e-9);
  counter.advance_to(15);  // half the ramp: mean 10 W over 0.5 s
  EXPECT_NEAR(counter.read_unwrapped_j(), 15.0, 1e-9);
  EXPECT_NEAR(counter.window_power_w(), 18.0, 1e-9);  // the last update covers 16..20 W
}

TEST(SimulatedCounter, NoiseIsSeededAndUnbiased) {
  const SimulationSettings a =
      settings_of({{"simulate.watts", "20"}, {"simulate.noise_w", "5"}, {"simulate.seed", "3"}});
  const SimulationSettings b =
      settings_of({{"simulate.watts", "20"}, {"simulate.noise_w", "5"}, {"simulate.seed", "4"}});
  SimulatedCounter first(a);
  SimulatedCounter again(a);
  SimulatedCounter other(b);
  for (SimulatedCounter* c : {&first, &again, &other}) c->advance_to(100'000);  // 100 s at 1 ms
  EXPECT_EQ(first.true_counter_j(), again.true_counter_j());
  EXPECT_NE(first.true_counter_j(), other.true_counter_j());
  // Sum of 1e5 draws of 5 W × 1 ms: s.d. 5e-3 × sqrt(1e5) ≈ 1.6 J around 2000 J.
  EXPECT_NEAR(first.true_counter_j(), 2000.0, 8.0);
  EXPECT_NE(first.true_counter_j(), 2000.0);
}

TEST(SimulatedCounter, WrapIsUndoneWhenReadOftenAndLosesWrapsWhenNot) {
  const SimulationSettings s = settings_of(
      {{"simulate.watts", "10"}, {"simulate.wrap_j", "1"}, {"simulate.update_period_ms", "10"}});
  SimulatedCounter often(s);
  for (std::uint64_t k = 1; k <= 500; ++k) {  // 0.1 J per update, read every update
    often.advance_to(k);
    (void)often.read_unwrapped_j();
  }
  EXPECT_NEAR(often.read_unwrapped_j(), 50.0, 1e-6);

  SimulatedCounter rarely(s);
  rarely.advance_to(25);  // 2.5 J between two reads of a 1 J register: two wraps are invisible
  EXPECT_NEAR(rarely.read_unwrapped_j(), 0.5, 1e-9);
  EXPECT_NEAR(rarely.true_counter_j(), 2.5, 1e-9);
}

TEST(SimulatedCounter, PowerAveragesOverTheWindow) {
  const SimulationSettings s = settings_of({{"simulate.profile", "0:1;100"},
                                            {"simulate.update_period_ms", "100"},
                                            {"simulate.average_window_ms", "1000"}});
  SimulatedCounter counter(s);
  counter.advance_to(10);
  EXPECT_NEAR(counter.window_power_w(), 0.0, 1e-9);
  counter.advance_to(15);  // half the window after the step
  EXPECT_NEAR(counter.window_power_w(), 50.0, 1e-9);
  counter.advance_to(30);
  EXPECT_NEAR(counter.window_power_w(), 100.0, 1e-9);
}

}  // namespace
}  // namespace jouleprof
