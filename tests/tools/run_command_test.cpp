// `jouleprof run` end to end, on the simulated source.
#include <gtest/gtest.h>
#include <signal.h>

#include <thread>

#include "jouleprof/profile.hpp"
#include "jouleprof/samples_csv.hpp"
#include "sources/simulated.hpp"
#include "tools/jouleprof_runner.hpp"

namespace jouleprof {
namespace {

using ::jouleprof::testing::Invocation;
using ::jouleprof::testing::run_jouleprof;
using ::jouleprof::testing::TempDir;

Profile read_run(const TempDir& dir) {
  Result<Profile> profile = read_profile_json((dir.path() / "run" / "profile.json").string());
  EXPECT_TRUE(profile.ok()) << (profile.ok() ? "" : profile.error().message());
  return profile.ok() ? std::move(profile).value() : Profile{};
}

TimeNs simulator_origin_ns(const Channel& c) {
  const std::size_t at = c.provenance_detail.find("origin_ns=");
  EXPECT_NE(at, std::string::npos) << c.provenance_detail;
  return std::stoll(c.provenance_detail.substr(at + 10));
}

// The energy jouleprof reports equals the exact integral of the simulated profile over the run
// window within 0.5 %.
void expect_energy_matches_profile(const Profile& p, const std::string& profile_text) {
  ASSERT_EQ(p.channels.size(), 1U);
  const Series* s = p.find_series(p.channels[0].channel_id);
  ASSERT_NE(s, nullptr);
  const TimeNs origin = simulator_origin_ns(s->channel());
  Result<PowerProfile> truth = PowerProfile::parse(profile_text, false);
  ASSERT_TRUE(truth.ok());
  const double expected =
      truth->energy_between_j(ns_to_s(p.meta.begin_ns - origin), ns_to_s(p.meta.end_ns - origin));
  EXPECT_NEAR(p.channels[0].energy_j, expected, 0.005 * expected);
  EXPECT_NEAR(p.total_energy_j(), expected, 0.005 * expected);
  EXPECT_EQ(p.channels[0].provenance, Provenance::kSimulated);
}

TEST(RunCommand, ConstantSimulatedPowerGivesItsIntegral) {
  TempDir dir;
  const Invocation inv =
      run_jouleprof({"run", "--simulate", "50", "--output", (dir.path() / "run").string(),
                     "--grid-intensity", "400", "--", "sleep", "1"},
                    dir);
  ASSERT_EQ(inv.exit_code, 0) << inv.err;
  const Profile p = read_run(dir);
  expect_energy_matches_profile(p, "50");
  EXPECT_NEAR(p.channels[0].energy_j, 50.0 * ns_to_s(p.meta.end_ns - p.meta.begin_ns), 0.25);
  EXPECT_GE(p.meta.end_ns - p.meta.begin_ns, kNsPerS);
  EXPECT_EQ(p.meta.command, (std::vector<std::string>{"sleep", "1"}));
  EXPECT_EQ(p.meta.grid_intensity_g_per_kwh, 400.0);
  EXPECT_NE(inv.out.find("simulated:package"), std::string::npos) << inv.out;
  EXPECT_NE(inv.out.find("CO2e:"), std::string::npos);

  // samples.csv holds the same samples as the profile.
  Result<std::vector<Series>> csv = read_samples_csv((dir.path() / "run" / "samples.csv").string());
  ASSERT_TRUE(csv.ok()) << csv.error().message();
  ASSERT_EQ(csv->size(), p.series.size());
  EXPECT_EQ((*csv)[0].size(), p.series[0].size());
  EXPECT_EQ((*csv)[0].back().value, p.series[0].back().value);
}

TEST(RunCommand, SteppedProfileWithIdleBaseline) {
  TempDir dir;
  const std::string profile = "20:0.6;80";  // idle 20 W while the baseline runs, then 80 W
  const Invocation inv = run_jouleprof(
      {"run", "--source", "simulated", "--set", "simulate.profile=" + profile, "--idle", "0.5",
       "--output", (dir.path() / "run").string(), "--format", "json", "--", "sleep", "1"},
      dir);
  ASSERT_EQ(inv.exit_code, 0) << inv.err;
  const Profile p = read_run(dir);
  expect_energy_matches_profile(p, profile);
  ASSERT_TRUE(p.channels[0].idle_power_w.has_value());
  EXPECT_NEAR(*p.channels[0].idle_power_w, 20.0, 0.2);
  // stdout is the same profile as the file.
  Result<Profile> printed = profile_from_json_string(inv.out, "stdout");
  ASSERT_TRUE(printed.ok()) << printed.error().message();
  EXPECT_EQ(printed->channels[0].energy_j, p.channels[0].energy_j);
}

TEST(RunCommand, ExitCodeOfTheCommandIsPropagated) {
  TempDir dir;
  const Invocation inv = run_jouleprof({"run", "--simulate", "5", "--output",
                                        (dir.path() / "run").string(), "--", "sh", "-c", "exit 3"},
                                       dir);
  EXPECT_EQ(inv.exit_code, 3) << inv.err;
  EXPECT_EQ(read_run(dir).meta.exit_code, 3);
}

TEST(RunCommand, SigtermIsForwardedToTheCommand) {
  TempDir dir;
  const std::filesystem::path ready = dir.path() / "ready";
  const std::string script = "trap 'exit 42' TERM; touch " +
                             ::jouleprof::testing::shell_quote(ready.string()) +
                             "; while true; do sleep 0.05; done";
  Result<ChildProcess> jouleprof = ::jouleprof::testing::start_jouleprof(
      {"run", "--simulate", "5", "--output", (dir.path() / "run").string(), "--", "sh", "-c",
       script},
      dir);
  ASSERT_TRUE(jouleprof.ok());
  while (!std::filesystem::exists(ready)) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  ASSERT_EQ(kill(jouleprof->pid(), SIGTERM), 0);
  const Invocation inv = ::jouleprof::testing::finish(*jouleprof, dir);
  // The run was cut short by SIGTERM: jouleprof ends as a process SIGTERM ended would, whatever
  // the command did with it; the command's own code (it trapped it) is in the profile.
  EXPECT_EQ(inv.exit_code, 128 + SIGTERM) << inv.err;
  const Profile p = read_run(dir);
  EXPECT_TRUE(p.meta.partial);
  EXPECT_EQ(p.meta.exit_code, 42);
  ASSERT_FALSE(p.warnings.empty());
  EXPECT_NE(p.warnings.back().find("signal 15"), std::string::npos) << p.warnings.back();
}

TEST(RunCommand, CrashOfTheCommandIsReportedAndTheRunKept) {
  TempDir dir;
  const Invocation inv =
      run_jouleprof({"run", "--simulate", "5", "--output", (dir.path() / "run").string(), "--",
                     "sh", "-c", "kill -SEGV $$"},
                    dir);
  EXPECT_EQ(inv.exit_code, 128 + SIGSEGV);
  EXPECT_NE(inv.err.find("killed by signal 11"), std::string::npos) << inv.err;
  const Profile p = read_run(dir);
  EXPECT_TRUE(p.meta.partial);
  EXPECT_EQ(p.series.size(), 1U);
}

TEST(RunCommand, ErrorsAreOneLineAndNonZero) {
  TempDir dir;
  Invocation inv = run_jouleprof({"run", "--source", "rapl-turbo", "--", "true"}, dir);
  EXPECT_EQ(inv.exit_code, 1);
  EXPECT_NE(inv.err.find("unknown energy source"), std::string::npos) << inv.err;
  EXPECT_EQ(std::count(inv.err.begin(), inv.err.end(), '\n'), 1);

  inv = run_jouleprof({"run", "--simulate", "5", "--", "/nonexistent/command"}, dir);
  EXPECT_EQ(inv.exit_code, 127);
  EXPECT_NE(inv.err.find("cannot run '/nonexistent/command'"), std::string::npos) << inv.err;

  inv = run_jouleprof({"run", "--simulate", "5"}, dir);  // no command
  EXPECT_EQ(inv.exit_code, 2);
  inv = run_jouleprof({"run", "--set", "nokey", "--", "true"}, dir);
  EXPECT_EQ(inv.exit_code, 1);
  EXPECT_NE(inv.err.find("KEY=VALUE"), std::string::npos) << inv.err;
}

TEST(RunCommand, HelpDescribesTheOptions) {
  TempDir dir;
  const Invocation inv = run_jouleprof({"run", "--help"}, dir);
  EXPECT_EQ(inv.exit_code, 0);
  for (const char* flag : {"--interval", "--idle", "--output", "--format", "--grid-intensity",
                           "--source", "--simulate", "--tdp", "--sysfs-root"}) {
    EXPECT_NE(inv.out.find(flag), std::string::npos) << flag;
  }
}

}  // namespace
}  // namespace jouleprof

namespace jouleprof::testing {
namespace {

TEST(RunCommandEpochs, ProjectsTheRunFromItsEpochs) {
  TempDir dir;
  // 20 epochs of 0.1 s at a simulated 50 W: ≈ 5 J each, the first one more (it includes the
  // process starting). STEP's projection equals the run's total when the epochs are steady.
  const Invocation inv =
      run_jouleprof({"run", "--simulate", "50", "--epochs", "20", "--no-history", "--output",
                     (dir.path() / "out").string(), "--", jouleprof_binary(), "burn", "--seconds",
                     "2", "--threads", "1", "--epochs", "20"},
                    dir);
  ASSERT_EQ(inv.exit_code, 0) << inv.err;
  EXPECT_NE(inv.err.find("epoch 20/20"), std::string::npos) << inv.err;
  const auto at = inv.err.rfind("projected total ");
  ASSERT_NE(at, std::string::npos) << inv.err;
  const double projected = std::stod(inv.err.substr(at + 16));
  double measured = 0.0;
  int epochs = 0;
  for (std::size_t pos = inv.err.find("/20: "); pos != std::string::npos;
       pos = inv.err.find("/20: ", pos + 1), ++epochs) {
    measured += std::stod(inv.err.substr(pos + 5));
  }
  ASSERT_EQ(epochs, 20) << inv.err;
  EXPECT_GT(measured, 95.0) << "no epoch is lost, the last ones included";
  EXPECT_NEAR(projected, measured, 0.03 * measured) << inv.err;
}

}  // namespace
}  // namespace jouleprof::testing
