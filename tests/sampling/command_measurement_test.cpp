#include "jouleprof/command_measurement.hpp"

#include <gtest/gtest.h>
#include <sys/resource.h>

#include <fstream>
#include <thread>

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

double children_cpu_s() {
  rusage usage{};
  getrusage(RUSAGE_CHILDREN, &usage);
  return static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
         1e-6 * static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec);
}

// The command's tree is observed: a child of the command that has exited before the command
// ends still counts (through the command's cutime), and the last reading comes after the command
// ended and before it was reaped, so its CPU time is all there. The truth is what this process's
// RUSAGE_CHILDREN gains when measure_command reaps the command.
TEST(MeasureCommand, ObservesTheCommandsWholeTreeToItsLastTick) {
  MonitorOptions options;
  options.sources.selected = {"simulated"};
  options.sources.settings["simulate.watts"] = "40";
  options.sources.observed = ObservedProcesses::process_tree();
  Result<std::unique_ptr<Monitor>> monitor = Monitor::open(options);
  ASSERT_TRUE(monitor.ok()) << monitor.error().message();
  // A child shell works and exits, then the command itself works: CPU time, not wall time, so
  // that a loaded machine only makes it slower.
  const std::string spin = "python3 -c 'import time\nwhile time.process_time() < 0.3: pass'";
  CommandMeasurementOptions run;
  run.argv = {"sh", "-c", spin + "; " + spin};
  const double before = children_cpu_s();
  Result<CommandMeasurement> m = measure_command(**monitor, run);
  ASSERT_TRUE(m.ok()) << m.error().message();
  ASSERT_EQ(m->exit_code, 0) << "needs python3";
  const double truth = children_cpu_s() - before;
  const Series* observed = m->profile.find_series("processes:cpu:cpu-time");
  ASSERT_NE(observed, nullptr);
  const double seen = observed->back().value - observed->front().value;
  EXPECT_GE(truth, 0.6);
  // Ticks are 10 ms: the tree's time is the truth to a few ticks.
  EXPECT_NEAR(seen, truth, 0.05) << "observed " << seen << " s, rusage " << truth << " s";
  EXPECT_EQ(m->profile.meta.options.process.observed.value().find("pid "), 0U);
  const ChannelSummary& c = m->profile.channels.at(0);
  ASSERT_TRUE(c.process.has_value());
  EXPECT_EQ(c.process->rule, "cpu-time");
  EXPECT_GT(c.process->energy_j, 0.0);
  EXPECT_LE(c.process->energy_j, c.energy_j);
}

TEST(MeasureObserved, FollowsAProcessThatAlreadyRunsUntilItExits) {
  Result<ChildProcess> sleeper = ChildProcess::spawn({"sleep", "0.4"});
  ASSERT_TRUE(sleeper.ok());
  MonitorOptions options;
  options.sources.selected = {"simulated"};
  options.sources.settings["simulate.watts"] = "10";
  options.sources.observed = ObservedProcesses::process_tree(sleeper->pid());
  Result<std::unique_ptr<Monitor>> monitor = Monitor::open(options);
  ASSERT_TRUE(monitor.ok());
  // The sleeper is this process's child: a reaper thread stands in for its real parent.
  std::thread reaper([&] { (void)sleeper->wait(); });
  Result<CommandMeasurement> m = measure_observed(**monitor, CommandMeasurementOptions{});
  reaper.join();
  ASSERT_TRUE(m.ok()) << m.error().message();
  EXPECT_EQ(m->exit_code, 0);
  EXPECT_EQ(m->profile.meta.command,
            (std::vector<std::string>{"--pid", std::to_string(sleeper->pid())}));
  EXPECT_GE(m->profile.meta.end_ns - m->profile.meta.begin_ns, 0);
  EXPECT_TRUE(m->profile.channels.at(0).process.has_value());
}

TEST(MeasureObserved, AProcessThatDoesNotExistIsAnError) {
  MonitorOptions options;
  options.sources.selected = {"simulated"};
  options.sources.settings["simulate.watts"] = "10";
  options.sources.observed = ObservedProcesses::process_tree(0x3fffffff);
  Result<std::unique_ptr<Monitor>> monitor = Monitor::open(options);
  ASSERT_TRUE(monitor.ok());
  Result<CommandMeasurement> m = measure_observed(**monitor, CommandMeasurementOptions{});
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.error().code(), ErrorCode::kNotFound);
  EXPECT_NE(m.error().message().find("no such process"), std::string::npos);
}

}  // namespace
}  // namespace jouleprof
