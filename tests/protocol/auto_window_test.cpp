#include "jouleprof/auto_window.hpp"

#include <gtest/gtest.h>

#include "jouleprof/sources.hpp"

namespace jouleprof {
namespace {

AutoWindowSetting tried(TimeNs window, TimeNs cooldown, std::vector<double> energies) {
  AutoWindowSetting s;
  s.window_ns = window;
  s.cooldown_ns = cooldown;
  s.energy_j_per_call = std::move(energies);
  summarise_trials(s);
  return s;
}

TEST(AutoWindow, TrialsThatAgreeAreAccepted) {
  const AutoWindowSetting s = tried(kNsPerS, 0, {1.00, 1.01, 0.99});
  EXPECT_NEAR(s.mean_j, 1.0, 1e-12);
  EXPECT_NEAR(s.cv, 0.01, 1e-9);
  EXPECT_FALSE(s.drifting);
  EXPECT_EQ(next_auto_window_step(s, AutoWindowOptions{}), AutoWindowNext::kAccept);
}

TEST(AutoWindow, ScatteredTrialsGetALongerWindow) {
  const AutoWindowSetting s = tried(kNsPerS, 0, {1.0, 1.3, 0.8});
  EXPECT_FALSE(s.drifting);
  EXPECT_EQ(next_auto_window_step(s, AutoWindowOptions{}), AutoWindowNext::kLongerWindow);
}

TEST(AutoWindow, TrialsThatGetCostlierAsTheDeviceHeatsGetACooldown) {
  AutoWindowOptions o;
  const AutoWindowSetting heating = tried(kNsPerS, 0, {1.0, 1.1, 1.2});
  EXPECT_TRUE(heating.drifting);
  EXPECT_EQ(next_auto_window_step(heating, o), AutoWindowNext::kLongerCooldown);
  // Cooldowns double up to their limit; then the window grows instead.
  o.max_cooldown_ns = kNsPerS;
  EXPECT_EQ(next_auto_window_step(tried(kNsPerS, kNsPerS, {1.0, 1.1, 1.2}), o),
            AutoWindowNext::kLongerWindow);
}

TEST(AutoWindow, TheSweepGivesUpAtItsLimits) {
  AutoWindowOptions o;
  o.max_window_ns = kNsPerS;
  o.max_cooldown_ns = 0;
  EXPECT_EQ(next_auto_window_step(tried(kNsPerS, 0, {1.0, 1.3, 0.8}), o), AutoWindowNext::kGiveUp);
  EXPECT_NE(next_auto_window_step(tried(kNsPerS, 0, {0.0, 0.0, 0.0}), o), AutoWindowNext::kAccept)
      << "no energy is not a stable figure";
}

TEST(AutoWindow, ASteadyDeviceIsStableAtTheFirstSetting) {
  SourceOptions sources;
  sources.selected = {"simulated"};
  sources.settings["simulate.watts"] = "40";
  MonitorOptions options;
  options.sources = sources;
  Result<std::unique_ptr<Monitor>> monitor = Monitor::open(options);
  ASSERT_TRUE(monitor) << monitor.error().message();
  // The per-call energy is 40 W × the call's wall time, which a loaded machine stretches unevenly:
  // the spread threshold is wide, and the sweep bounded (0.2, 0.4, 0.8 s windows, no cooldown).
  AutoWindowOptions o;
  o.first_window_ns = 200 * kNsPerMs;
  o.max_window_ns = 800 * kNsPerMs;
  o.max_cooldown_ns = 0;
  o.max_cv = 0.5;
  std::vector<ProgressEvent> events;
  ProgressReporter progress([&](const ProgressEvent& e) { events.push_back(e); });
  const auto spin = [] {
    const TimeNs t0 = monotonic_now_ns();
    while (monotonic_now_ns() - t0 < kNsPerMs) {
    }
    return Status::Ok();
  };
  const Result<AutoWindowResult> r = find_stable_window(**monitor, spin, o, &progress);
  ASSERT_TRUE(r) << r.error().message();
  ASSERT_TRUE(r->stable) << r->missing;
  ASSERT_FALSE(r->sweep.empty());
  EXPECT_LE(r->sweep.size(), 3u);
  EXPECT_EQ(r->window_ns, r->sweep.back().window_ns) << "the stable setting is the last tried";
  EXPECT_LE(r->cv, o.max_cv);
  EXPECT_EQ(r->cooldown_ns, 0);
  for (const AutoWindowSetting& s : r->sweep) EXPECT_EQ(s.energy_j_per_call.size(), o.trials);
  // 40 W × at least 1 ms per call.
  EXPECT_GE(r->energy_j_per_call, 0.95 * 40.0 * 1e-3);
  EXPECT_NE(r->provenance.find("simulated"), std::string::npos) << r->provenance;
  std::size_t steps = 0;
  for (const ProgressEvent& e : events) steps += e.kind == ProgressEventKind::kStep;
  EXPECT_EQ(steps, o.trials * r->sweep.size());
  EXPECT_EQ(r->profile.meta.options.auto_window.window_ns, r->window_ns);
}

TEST(AutoWindow, BadOptionsAreAnError) {
  AutoWindowOptions o;
  o.trials = 1;
  std::vector<std::unique_ptr<Source>> none;
  auto monitor = Monitor::from_sources(std::move(none), MonitorOptions{});
  const Result<AutoWindowResult> r = find_stable_window(
      *monitor, [] { return Status::Ok(); }, o);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message().find("trials"), std::string::npos);
}

}  // namespace
}  // namespace jouleprof
