#include "jouleprof/command_measurement.hpp"

#include <gtest/gtest.h>

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

TEST(MeasureCommand, EnergyOfAConstantLoadAndTheExitCode) {
  auto monitor = simulated_monitor("40");
  CommandMeasurementOptions options;
  options.argv = {"sh", "-c", "sleep 0.3; exit 5"};
  options.idle_ns = 100 * kNsPerMs;
  int ticks = 0;
  options.tick_ns = 20 * kNsPerMs;
  options.on_tick = [&ticks](const LiveStatus&) { ++ticks; };
  Result<CommandMeasurement> m = measure_command(*monitor, options);
  ASSERT_TRUE(m.ok()) << m.error().message();
  EXPECT_EQ(m->exit_code, 5);
  EXPECT_EQ(m->profile.meta.exit_code, 5);
  EXPECT_EQ(m->profile.meta.command, options.argv);
  EXPECT_FALSE(m->profile.meta.partial);
  EXPECT_GT(ticks, 0);
  const ChannelSummary& c = m->profile.channels.at(0);
  EXPECT_NEAR(c.energy_j, 40.0 * ns_to_s(c.duration_ns), 40.0 * 2e-3);
  ASSERT_TRUE(c.net_energy_j.has_value());
  EXPECT_NEAR(*c.net_energy_j, 0.0, 40.0 * 4e-3);  // constant power: nothing above idle
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
