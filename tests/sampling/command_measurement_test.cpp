#include "jouleprof/command_measurement.hpp"

#include <gtest/gtest.h>

#include <fstream>

#include "test_support.hpp"

namespace jouleprof {
namespace {

std::unique_ptr<Monitor> simulated_monitor(const char* watts) {
  MonitorOptions options;
  options.sources.selected = {"simulated"};
  options.sources.settings["simulate.watts"] = watts;
  Result<std::unique_ptr<Monitor>> monitor = Monitor::open(options);
  EXPECT_TRUE(monitor.ok());
  return monitor.ok() ? std::move(monitor).value() : nullptr;
}

// The command cannot end before the first progress tick has run (it waits for the file the tick
// writes), so that the tick is seen however the machine schedules the measuring thread.
TEST(MeasureCommand, EnergyOfAConstantLoadAndTheExitCode) {
  auto monitor = simulated_monitor("40");
  ::jouleprof::testing::TempDir dir;
  const std::string ticked = (dir.path() / "ticked").string();
  CommandMeasurementOptions options;
  options.argv = {"sh", "-c",
                  "sleep 0.3; while [ ! -e '" + ticked + "' ]; do sleep 0.01; done; exit 5"};
  options.idle_ns = 100 * kNsPerMs;
  int ticks = 0;
  options.tick_ns = 20 * kNsPerMs;
  options.on_tick = [&](const LiveStatus&) {
    if (ticks++ == 0) std::ofstream(ticked) << "tick\n";
  };
  Result<CommandMeasurement> m = measure_command(*monitor, options);
  ASSERT_TRUE(m.ok()) << m.error().message();
  EXPECT_EQ(m->exit_code, 5);
  EXPECT_EQ(m->profile.meta.exit_code, 5);
  EXPECT_EQ(m->profile.meta.command, options.argv);
  EXPECT_FALSE(m->profile.meta.partial);
  EXPECT_GT(ticks, 0);
  const ChannelSummary& c = m->profile.channels.at(0);
  // The simulated counter steps every 1 ms: each edge of a window may be one step off.
  constexpr double kStepJ = 40.0 * 1e-3;
  const double duration_s = ns_to_s(c.duration_ns);
  EXPECT_NEAR(c.energy_j, 40.0 * duration_s, 2 * kStepJ);
  ASSERT_TRUE(c.net_energy_j.has_value());
  // Constant power: nothing above idle, within the run's edges and the 0.1 s baseline's edges
  // scaled to the run's length.
  EXPECT_NEAR(*c.net_energy_j, 0.0, kStepJ * (2 + 2 * duration_s / 0.1));
  EXPECT_GE(c.duration_ns, 300 * kNsPerMs);
}

TEST(MeasureCommand, ChildKilledBySignalIsPartialWithWarning) {
  auto monitor = simulated_monitor("10");
  CommandMeasurementOptions options;
  options.argv = {"sh", "-c", "kill -KILL $$"};
  Result<CommandMeasurement> m = measure_command(*monitor, options);
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->exit_code, 128 + 9);
  EXPECT_TRUE(m->profile.meta.partial);
  ASSERT_FALSE(m->profile.warnings.empty());
  EXPECT_NE(m->profile.warnings.back().find("killed by signal 9"), std::string::npos);
}

TEST(MeasureCommand, CommandThatCannotStartIsAnError) {
  auto monitor = simulated_monitor("10");
  CommandMeasurementOptions options;
  options.argv = {"/nonexistent/command"};
  Result<CommandMeasurement> m = measure_command(*monitor, options);
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.error().message().find("/nonexistent/command"), std::string::npos);
}

}  // namespace
}  // namespace jouleprof
