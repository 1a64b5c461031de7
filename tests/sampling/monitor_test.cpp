#include "jouleprof/monitor.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <thread>

#include "sources/simulated.hpp"
#include "test_support.hpp"

namespace jouleprof {
namespace {

void sleep_until(TimeNs t_ns) {
  while (monotonic_now_ns() < t_ns) std::this_thread::sleep_for(std::chrono::microseconds(200));
}

MonitorOptions simulated(std::map<std::string, std::string> settings) {
  MonitorOptions options;
  options.sources.selected = {"simulated"};
  options.sources.settings = std::move(settings);
  return options;
}

TEST(Monitor, NoAvailableSourceIsAnErrorThatSaysWhy) {
  ::jouleprof::testing::hide_gpu_libraries();
  ::jouleprof::testing::TempDir empty_root;
  MonitorOptions options;
  options.sources.sysfs_root = empty_root.path().string();
  Result<std::unique_ptr<Monitor>> monitor = Monitor::open(options);
  ASSERT_FALSE(monitor.ok());
  EXPECT_NE(monitor.error().message().find("cpu-estimate"), std::string::npos)
      << monitor.error().message();
  // The fix names the setting (the command line maps it to --simulate).
  EXPECT_NE(monitor.error().message().find("setting simulate.watts"), std::string::npos);
}

// The simulator's exact integral over [a, b] (monotonic ns) and how far a figure read off its
// counter between readings taken at a and b may be from it: one counter update (1 ms) of the
// power at each end.
struct Truth {
  double energy_j = 0.0;
  double tolerance_j = 0.0;
};
Truth truth_between(const PowerProfile& profile, TimeNs origin_ns, TimeNs a_ns, TimeNs b_ns) {
  const double a_s = ns_to_s(a_ns - origin_ns);
  const double b_s = ns_to_s(b_ns - origin_ns);
  return {profile.energy_between_j(a_s, b_s), (profile.power_w(a_s) + profile.power_w(b_s)) * 1e-3};
}

// Gross energy over the run window and the idle baseline match the simulated profile's exact
// integral; the profile carries the sampler's own cost. The windows begin and end on readings
// (sync), so the figures are exact whatever the test thread's timing, and the expected values
// come from the windows actually used: a stalled thread changes the windows, not the verdict.
TEST(Monitor, GrossAndNetEnergyOnASimulatedStep) {
  const std::string step = "10:0.3;110";
  Result<std::unique_ptr<Monitor>> opened_monitor =
      Monitor::open(simulated({{"simulate.profile", step}}));
  ASSERT_TRUE(opened_monitor.ok()) << opened_monitor.error().message();
  Monitor& monitor = **opened_monitor;
  ASSERT_TRUE(monitor.start().ok());
  const TimeNs idle_begin = monitor.sync();
  ASSERT_EQ(monitor.recent(0).size(), 1U);
  const std::optional<TimeNs> origin = simulated_origin_ns(monitor.recent(0)[0].channel());
  ASSERT_TRUE(origin.has_value());
  sleep_until(*origin + 250 * kNsPerMs);  // usually inside the 10 W part
  const TimeNs idle_end = monitor.sync();
  monitor.set_idle_window(idle_begin, idle_end);
  sleep_until(*origin + 400 * kNsPerMs);  // always past the step to 110 W
  const TimeNs begin = monitor.sync();
  monitor.set_run_begin(begin);
  const LiveStatus live = monitor.live();
  EXPECT_GT(live.energy_j, 0.0);
  sleep_until(begin + 300 * kNsPerMs);
  const Profile profile = monitor.stop();

  ASSERT_EQ(profile.channels.size(), 1U);
  const ChannelSummary& c = profile.channels[0];
  EXPECT_EQ(c.duration_ns, profile.meta.end_ns - profile.meta.begin_ns);
  Result<PowerProfile> truth = PowerProfile::parse(step, false);
  ASSERT_TRUE(truth.ok());
  const Truth run = truth_between(*truth, *origin, profile.meta.begin_ns, profile.meta.end_ns);
  EXPECT_NEAR(c.energy_j, run.energy_j, run.tolerance_j);
  EXPECT_NEAR(c.energy_j, 110.0 * ns_to_s(c.duration_ns), run.tolerance_j);  // all after the step
  const Truth idle = truth_between(*truth, *origin, idle_begin, idle_end);
  const double idle_s = ns_to_s(idle_end - idle_begin);
  ASSERT_TRUE(c.idle_power_w.has_value());
  EXPECT_NEAR(*c.idle_power_w, idle.energy_j / idle_s, idle.tolerance_j / idle_s);
  ASSERT_TRUE(c.net_energy_j.has_value());
  EXPECT_NEAR(*c.net_energy_j, run.energy_j - idle.energy_j / idle_s * ns_to_s(c.duration_ns),
              run.tolerance_j + idle.tolerance_j / idle_s * ns_to_s(c.duration_ns));
  EXPECT_EQ(c.provenance, Provenance::kSimulated);
  EXPECT_EQ(profile.meta.kind, "run");
  EXPECT_EQ(profile.meta.options.sources.names, std::vector<std::string>{"simulated"});
  EXPECT_EQ(profile.meta.options.idle.begin_ns, idle_begin);
  EXPECT_GT(profile.meta.options.sampler.thread_cpu_ns.value(), 0);
  EXPECT_TRUE(profile.meta.options.sampler.cpu_percent_of_one_core);
  EXPECT_FALSE(profile.meta.partial);
  EXPECT_GT(profile.series[0].channel().measured_period_ns, 0);
}

TEST(Monitor, StopTwiceGivesAnEmptySecondProfile) {
  Result<std::unique_ptr<Monitor>> monitor = Monitor::open(simulated({{"simulate.watts", "5"}}));
  ASSERT_TRUE(monitor.ok());
  ASSERT_TRUE((*monitor)->start().ok());
  EXPECT_FALSE((*monitor)->start().ok());
  EXPECT_EQ((*monitor)->stop().series.size(), 1U);
  EXPECT_TRUE((*monitor)->stop().series.empty());
}

// A counter that should update every millisecond but stays put over the run gets a warning.
TEST(Monitor, FrozenCounterIsFlagged) {
  Result<std::unique_ptr<Monitor>> monitor = Monitor::open(simulated({{"simulate.watts", "0"}}));
  ASSERT_TRUE(monitor.ok());
  ASSERT_TRUE((*monitor)->start().ok());
  sleep_until(monotonic_now_ns() + 50 * kNsPerMs);
  const Profile frozen = (*monitor)->stop();
  ASSERT_FALSE(frozen.warnings.empty());
  EXPECT_NE(frozen.warnings.back().find("simulated:package did not change"), std::string::npos)
      << frozen.warnings.back();

  Result<std::unique_ptr<Monitor>> live = Monitor::open(simulated({{"simulate.watts", "3"}}));
  ASSERT_TRUE(live.ok());
  ASSERT_TRUE((*live)->start().ok());
  sleep_until(monotonic_now_ns() + 50 * kNsPerMs);
  EXPECT_TRUE((*live)->stop().warnings.empty());
}

}  // namespace
}  // namespace jouleprof
