// `jouleprof run` end to end, on the simulated source.
#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <optional>
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

// How far the counter interpolated at t may be from the exact integral up to t: one counter update
// (1 ms) at the highest power around t, plus, where the power changes between the two readings
// around t, the most linear interpolation can miss over that gap, (max − min power) × gap / 4.
// Readings taken late (a loaded machine) widen the gap and the allowance with it, so the check
// holds whatever the sampling thread's timing.
double interpolation_tolerance_j(const Series& s, const PowerProfile& truth, TimeNs origin,
                                 TimeNs t) {
  const std::size_t after = std::min(s.lower_bound(t), s.size() - 1);
  const TimeNs lo = s[after > 0 && s[after].t_ns > t ? after - 1 : after].t_ns;
  const TimeNs hi = s[after].t_ns;
  const double p_lo = truth.power_w(ns_to_s(lo - origin));
  const double p_hi = truth.power_w(ns_to_s(hi - origin));
  return std::max(p_lo, p_hi) * 1e-3 + std::abs(p_hi - p_lo) * ns_to_s(hi - lo) / 4.0;
}

// The energy jouleprof reports equals the exact integral of the simulated profile over the run
// window within 0.5 % (or what the readings at the window's edges allow, when more).
void expect_energy_matches_profile(const Profile& p, const std::string& profile_text) {
  ASSERT_EQ(p.channels.size(), 1U);
  const Series* s = p.find_series(p.channels[0].channel_id);
  ASSERT_NE(s, nullptr);
  const std::optional<TimeNs> origin = simulated_origin_ns(s->channel());
  ASSERT_TRUE(origin.has_value()) << s->channel().provenance_detail;
  Result<PowerProfile> truth = PowerProfile::parse(profile_text, false);
  ASSERT_TRUE(truth.ok());
  const double expected =
      truth->energy_between_j(ns_to_s(p.meta.begin_ns - *origin), ns_to_s(p.meta.end_ns - *origin));
  const double tolerance =
      std::max(0.005 * expected, interpolation_tolerance_j(*s, *truth, *origin, p.meta.begin_ns) +
                                     interpolation_tolerance_j(*s, *truth, *origin, p.meta.end_ns));
  EXPECT_NEAR(p.channels[0].energy_j, expected, tolerance);
  EXPECT_NEAR(p.total_energy_j(), expected, tolerance);
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

// The baseline is the profile's mean power over the idle window the run recorded: 20 W when the
// run starts promptly, more if starting took so long that the window reached the step.
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
  const Series& s = p.series.at(0);
  const TimeNs origin = simulated_origin_ns(s.channel()).value_or(0);
  const PowerProfile truth = PowerProfile::parse(profile, false).value();
  const TimeNs idle_begin =
      std::max<TimeNs>(std::stoll(p.meta.options.at("idle.begin_ns")), s.begin_ns());
  const TimeNs idle_end = std::stoll(p.meta.options.at("idle.end_ns"));
  const double idle_s = ns_to_s(idle_end - idle_begin);
  EXPECT_GE(idle_s, 0.45);
  EXPECT_NEAR(
      *p.channels[0].idle_power_w,
      truth.energy_between_j(ns_to_s(idle_begin - origin), ns_to_s(idle_end - origin)) / idle_s,
      (interpolation_tolerance_j(s, truth, origin, idle_begin) +
       interpolation_tolerance_j(s, truth, origin, idle_end)) /
          idle_s);
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
  EXPECT_EQ(inv.exit_code, 42) << inv.err;  // the child trapped it and chose its code
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

// `jouleprof run --source rocm-smi|level-zero` against the fake libraries (loaded through the real
// dlopen path), whose counters follow a scripted 200 W on the monotonic clock: the run measures
// 200 W × its duration within 0.5 %.
struct GpuBackend {
  const char* source;
  const char* library_variable;
  const char* library;
  const char* scenario_variable;
  const char* watts_variable;
  const char* channel;
};

void expect_run_measures_200_watts(const GpuBackend& gpu) {
  ::jouleprof::testing::hide_gpu_libraries();
  ::setenv(gpu.library_variable, gpu.library, 1);
  ::setenv(gpu.scenario_variable, "steady_power", 1);
  ::setenv(gpu.watts_variable, "200", 1);
  TempDir dir;
  const Invocation inv = run_jouleprof({"run", "--source", gpu.source, "--no-history", "--output",
                                        (dir.path() / "run").string(), "--", "sleep", "2"},
                                       dir);
  ::unsetenv(gpu.scenario_variable);
  ::unsetenv(gpu.watts_variable);
  ASSERT_EQ(inv.exit_code, 0) << inv.err;
  const Profile p = read_run(dir);
  const auto summary =
      std::find_if(p.channels.begin(), p.channels.end(),
                   [&](const ChannelSummary& c) { return c.channel_id == gpu.channel; });
  ASSERT_NE(summary, p.channels.end()) << gpu.channel;
  EXPECT_EQ(summary->provenance, Provenance::kMeasured);
  const double seconds = ns_to_s(summary->duration_ns);
  EXPECT_GE(seconds, 2.0);
  EXPECT_NEAR(summary->energy_j, 200.0 * seconds, 0.005 * 200.0 * seconds) << gpu.source;
  EXPECT_NEAR(p.total_energy_j(), 200.0 * seconds, 0.005 * 200.0 * seconds) << gpu.source;
}

TEST(RunCommand, RocmSmiMeasuresAScripted200Watts) {
  expect_run_measures_200_watts({"rocm-smi", "JOULEPROF_ROCM_SMI_LIBRARY", FAKE_ROCM_SMI_PATH,
                                 "FAKE_ROCM_SMI_SCENARIO", "FAKE_ROCM_SMI_WATTS",
                                 "rocm-smi:0:energy"});
}

TEST(RunCommand, LevelZeroMeasuresAScripted200Watts) {
  expect_run_measures_200_watts({"level-zero", "JOULEPROF_LEVEL_ZERO_LIBRARY", FAKE_LEVEL_ZERO_PATH,
                                 "FAKE_LEVEL_ZERO_SCENARIO", "FAKE_LEVEL_ZERO_WATTS",
                                 "level-zero:0:package"});
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
  // process starting).
  const Invocation inv =
      run_jouleprof({"run", "--simulate", "50", "--epochs", "20", "--no-history", "--output",
                     (dir.path() / "out").string(), "--", jouleprof_binary(), "burn", "--seconds",
                     "2", "--threads", "1", "--epochs", "20"},
                    dir);
  ASSERT_EQ(inv.exit_code, 0) << inv.err;
  EXPECT_NE(inv.err.find("epoch 20/20"), std::string::npos) << inv.err;
  std::vector<double> epochs;
  for (std::size_t pos = inv.err.find("/20: "); pos != std::string::npos;
       pos = inv.err.find("/20: ", pos + 1)) {
    epochs.push_back(std::stod(inv.err.substr(pos + 5)));
  }
  ASSERT_EQ(epochs.size(), 20U) << inv.err;
  const double measured = std::accumulate(epochs.begin(), epochs.end(), 0.0);
  EXPECT_GT(measured, 95.0) << "no epoch is lost, the last ones included";

  // The last line's projection is STEP's over the epochs printed before it: the head summed, the
  // window's mean for every epoch from s on (printed values are rounded to 0.01 J and 0.1 J).
  const auto at = inv.err.rfind("projected total ");
  ASSERT_NE(at, std::string::npos) << inv.err;
  const double projected = std::stod(inv.err.substr(at + 16));
  const auto step_at = inv.err.find("(STEP s=", at);
  ASSERT_NE(step_at, std::string::npos) << inv.err;
  int s = 0;
  int w = 0;
  ASSERT_EQ(std::sscanf(inv.err.c_str() + step_at, "(STEP s=%d, w=%d)", &s, &w), 2) << inv.err;
  ASSERT_GT(w, 0);
  ASSERT_LE(s + w, 20);
  const double head = std::accumulate(epochs.begin(), epochs.begin() + s, 0.0);
  const double window = std::accumulate(epochs.begin() + s, epochs.begin() + s + w, 0.0) / w;
  EXPECT_NEAR(projected, head + (20 - s) * window, 0.2) << inv.err;
  // Steady epochs make the projection the run's total: it is off by no more than the spread of
  // the epochs it extrapolates over (which a loaded machine widens, epoch ends coming late).
  const auto [low, high] = std::minmax_element(epochs.begin() + s, epochs.end());
  EXPECT_LE(std::abs(projected - measured), (20 - s) * (*high - *low) + 0.2) << inv.err;
}

}  // namespace
}  // namespace jouleprof::testing
