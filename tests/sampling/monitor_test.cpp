#include "jouleprof/monitor.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <thread>

#include "sources/simulated.hpp"
#include "test_support.hpp"

namespace jouleprof {
namespace {

// A fake root hides sysfs and /proc, but NVML is found through the dynamic loader: point it at
// a library that does not exist so a GPU on the test machine cannot join the default set.
void hide_real_nvml() { setenv("JOULEPROF_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1", 1); }

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
  hide_real_nvml();
  ::jouleprof::testing::TempDir empty_root;
  MonitorOptions options;
  options.sources.sysfs_root = empty_root.path().string();
  Result<std::unique_ptr<Monitor>> monitor = Monitor::open(options);
  ASSERT_FALSE(monitor.ok());
  EXPECT_NE(monitor.error().message().find("cpu-estimate"), std::string::npos)
      << monitor.error().message();
  EXPECT_NE(monitor.error().message().find("--simulate"), std::string::npos);
}

// Gross energy over the run window matches the profile's integral; the idle baseline (10 W)
// gives the net figure; the profile carries the sampler's own cost.
TEST(Monitor, GrossAndNetEnergyOnASimulatedStep) {
  const TimeNs opened = monotonic_now_ns();
  Result<std::unique_ptr<Monitor>> opened_monitor =
      Monitor::open(simulated({{"simulate.profile", "10:0.3;110"}}));
  ASSERT_TRUE(opened_monitor.ok()) << opened_monitor.error().message();
  Monitor& monitor = **opened_monitor;
  ASSERT_TRUE(monitor.start().ok());
  sleep_until(opened + 250 * kNsPerMs);
  monitor.set_idle_window(opened + 50 * kNsPerMs, opened + 250 * kNsPerMs);
  sleep_until(opened + 400 * kNsPerMs);
  const TimeNs begin = monotonic_now_ns();
  monitor.set_run_begin(begin);
  const LiveStatus live = monitor.live();
  EXPECT_GT(live.energy_j, 0.0);
  sleep_until(begin + 300 * kNsPerMs);
  const Profile profile = monitor.stop();

  ASSERT_EQ(profile.channels.size(), 1U);
  const ChannelSummary& c = profile.channels[0];
  const double seconds = ns_to_s(c.duration_ns);
  EXPECT_NEAR(seconds, ns_to_s(profile.meta.end_ns - profile.meta.begin_ns), 1e-3);
  EXPECT_NEAR(c.energy_j, 110.0 * seconds, 110.0 * 2e-3);  // ±2 counter updates
  ASSERT_TRUE(c.idle_power_w.has_value());
  EXPECT_NEAR(*c.idle_power_w, 10.0, 0.2);
  EXPECT_NEAR(*c.net_energy_j, 100.0 * seconds, 0.5);
  EXPECT_EQ(c.provenance, Provenance::kSimulated);
  EXPECT_EQ(profile.meta.kind, "run");
  EXPECT_EQ(profile.meta.options.at("sources"), "simulated");
  EXPECT_GT(std::stoll(profile.meta.options.at("sampler.thread_cpu_ns")), 0);
  EXPECT_TRUE(profile.meta.options.count("sampler.cpu_percent_of_one_core"));
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
