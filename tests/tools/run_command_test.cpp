// `jouleprof run` end to end, on the simulated source.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <numeric>
#include <optional>
#include <sstream>
#include <thread>

#include "jouleprof/profile.hpp"
#include "jouleprof/samples_csv.hpp"
#include "jouleprof/step.hpp"
#include "sources/process_activity.hpp"
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
  // The report goes to stderr; stdout is the command's own (sleep prints nothing).
  EXPECT_EQ(inv.out, "");
  EXPECT_NE(inv.err.find("simulated:package"), std::string::npos) << inv.err;
  EXPECT_NE(inv.err.find("CO2e "), std::string::npos) << inv.err;

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
  const Invocation inv =
      run_jouleprof({"run", "--source", "simulated", "--set", "simulate.profile=" + profile,
                     "--idle", "0.5", "--output", (dir.path() / "run").string(), "--format", "json",
                     "--report", "-", "--", "sleep", "1"},
                    dir);
  ASSERT_EQ(inv.exit_code, 0) << inv.err;
  const Profile p = read_run(dir);
  expect_energy_matches_profile(p, profile);
  ASSERT_TRUE(p.channels[0].idle_power_w.has_value());
  const Series* simulated = p.find_series(p.channels[0].channel_id);
  ASSERT_NE(simulated, nullptr);
  const Series& s = *simulated;  // the processes source's series come beside it
  const TimeNs origin = simulated_origin_ns(s.channel()).value_or(0);
  const PowerProfile truth = PowerProfile::parse(profile, false).value();
  const TimeNs idle_begin = std::max<TimeNs>(p.meta.options.idle.begin_ns.value(), s.begin_ns());
  const TimeNs idle_end = p.meta.options.idle.end_ns.value();
  const double idle_s = ns_to_s(idle_end - idle_begin);
  EXPECT_GE(idle_s, 0.45);
  EXPECT_NEAR(
      *p.channels[0].idle_power_w,
      truth.energy_between_j(ns_to_s(idle_begin - origin), ns_to_s(idle_end - origin)) / idle_s,
      (interpolation_tolerance_j(s, truth, origin, idle_begin) +
       interpolation_tolerance_j(s, truth, origin, idle_end)) /
          idle_s);
  // --report - asked for stdout: the same profile as the file.
  Result<Profile> printed = profile_from_json_string(inv.out, "stdout");
  ASSERT_TRUE(printed.ok()) << printed.error().message();
  EXPECT_EQ(printed->channels[0].energy_j, p.channels[0].energy_j);
}

TEST(RunCommand, TheCommandsStdoutIsItsOwn) {
  TempDir dir;
  // The report (JSON here) on stderr: the command's output can be piped on untouched.
  Invocation inv = run_jouleprof({"run", "--simulate", "5", "--no-history", "--format", "json",
                                  "--output", (dir.path() / "a").string(), "--", "echo", "hello"},
                                 dir);
  ASSERT_EQ(inv.exit_code, 0) << inv.err;
  EXPECT_EQ(inv.out, "hello\n");
  Result<Profile> on_stderr = profile_from_json_string(inv.err, "stderr");
  ASSERT_TRUE(on_stderr.ok()) << on_stderr.error().message() << "\n" << inv.err;
  EXPECT_EQ(on_stderr->meta.command, (std::vector<std::string>{"echo", "hello"}));

  // --report FILE: the table there, stdout still the command's, stderr quiet.
  const std::string report = (dir.path() / "report.txt").string();
  inv = run_jouleprof({"run", "--simulate", "5", "--no-history", "--report", report, "--output",
                       (dir.path() / "b").string(), "--", "echo", "hello"},
                      dir);
  ASSERT_EQ(inv.exit_code, 0) << inv.err;
  EXPECT_EQ(inv.out, "hello\n");
  // Only warnings stay on stderr (a busy machine gets the others-did-the-work one).
  std::istringstream err_lines(inv.err);
  for (std::string line; std::getline(err_lines, line);) {
    EXPECT_TRUE(line.starts_with("jouleprof: warning: ")) << line;
  }
  EXPECT_NE(testing::read_file(report).find("simulated:package"), std::string::npos);
}

TEST(RunCommand, OutputCanNameTheProfileFile) {
  TempDir dir;
  const std::filesystem::path profile = dir.path() / "ci" / "candidate.json";
  const Invocation inv = run_jouleprof(
      {"run", "--simulate", "5", "--no-history", "--output", profile.string(), "--", "true"}, dir);
  ASSERT_EQ(inv.exit_code, 0) << inv.err;
  EXPECT_TRUE(read_profile_json(profile.string()).ok());
  EXPECT_TRUE(read_samples_csv((dir.path() / "ci" / "candidate.samples.csv").string()).ok());
  EXPECT_FALSE(std::filesystem::is_directory(profile));
  EXPECT_NE(inv.err.find("candidate.samples.csv"), std::string::npos) << inv.err;
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
  EXPECT_EQ(std::count_if(p.series.begin(), p.series.end(),
                          [](const Series& s) { return s.channel().carries_energy(); }),
            1);
}

TEST(RunCommand, ErrorsAreOneLineAndNonZero) {
  TempDir dir;
  Invocation inv = run_jouleprof({"run", "--source", "rapl-turbo", "--", "true"}, dir);
  EXPECT_EQ(inv.exit_code, 1);
  EXPECT_NE(inv.err.find("unknown energy source"), std::string::npos) << inv.err;
  // The library's option field, named by the flag that sets it.
  EXPECT_EQ(inv.err.rfind("jouleprof: --source: field 'name' has value 'rapl-turbo'", 0), 0U)
      << inv.err;
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
  for (const char* flag : {"--interval", "--idle", "--output", "--report", "--format",
                           "--grid-intensity", "--source", "--simulate", "--tdp", "--sysfs-root",
                           "--depth", "--top", "--full", "--pid", "--cgroup", "--static-share"}) {
    EXPECT_NE(inv.out.find(flag), std::string::npos) << flag;
  }
}

// The table and the profile carry both figures, and the headline says which is which.
TEST(RunCommand, ReportsTheMachinesAndTheCommandsEnergy) {
  TempDir dir;
  const Invocation inv = run_jouleprof(
      {"run", "--simulate", "20", "--no-history", "--output", (dir.path() / "run").string(), "--",
       "sh", "-c", "i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done"},
      dir);
  ASSERT_EQ(inv.exit_code, 0) << inv.err;
  // The report is on stderr (the command's stdout stays its own).
  EXPECT_NE(inv.err.find("processes"), std::string::npos) << inv.err;
  EXPECT_NE(inv.err.find("share"), std::string::npos) << inv.err;
  EXPECT_NE(inv.err.find("of the total"), std::string::npos) << inv.err;
  EXPECT_NE(inv.err.find("observed processes (pid "), std::string::npos) << inv.err;
  // The line wraps at the width: its two parts are looked for apart.
  EXPECT_NE(inv.err.find("attributed:cpu-time,"), std::string::npos) << inv.err;
  EXPECT_NE(inv.err.find("static part shared by cpu-time"), std::string::npos) << inv.err;
  const Profile p = read_run(dir);
  const ChannelSummary& c = p.channels.at(0);
  ASSERT_TRUE(c.process.has_value());
  EXPECT_GT(c.process->share, 0.0);
  EXPECT_LE(c.process->share, 1.0);
  EXPECT_EQ(c.process->rule, "cpu-time");
  EXPECT_EQ(p.meta.options.process.static_share, StaticShare::kCpuTime);
  ASSERT_NE(p.find_series("processes:cpu:cpu-time"), nullptr);
  EXPECT_GT(p.find_series("processes:cpu:cpu-time")->back().value, 0.0);
}

// The profile file packs its samples (schema version 2); `report --format json` prints the same
// profile with every reading as a [t_ns, value] row, and reads back to what the file holds.
TEST(RunCommand, TheProfileFilePacksItsRowsAndReportJsonExpandsThem) {
  TempDir dir;
  const Invocation run = run_jouleprof({"run", "--simulate", "20", "--no-history", "--output",
                                        (dir.path() / "run").string(), "--", "sleep", "0.2"},
                                       dir);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const std::string path = (dir.path() / "run" / "profile.json").string();
  const nlohmann::json file = nlohmann::json::parse(::jouleprof::testing::read_file(path));
  EXPECT_EQ(file.at("schema_version"), kProfileSchemaVersion);
  const nlohmann::json& packed = file.at("series").at(0).at("samples");
  ASSERT_TRUE(packed.is_object()) << packed.dump().substr(0, 200);
  EXPECT_EQ(packed.at("encoding"), "packed-columns-1");

  const Invocation report = run_jouleprof({"report", path, "--format", "json"}, dir);
  ASSERT_EQ(report.exit_code, 0) << report.err;
  const nlohmann::json expanded = nlohmann::json::parse(report.out);
  const nlohmann::json& rows = expanded.at("series").at(0).at("samples");
  ASSERT_TRUE(rows.is_array());
  EXPECT_EQ(rows.size(), packed.at("count").get<std::size_t>());
  EXPECT_TRUE(rows.at(0).is_array() && rows.at(0).size() == 2u);
  const Result<Profile> from_report = profile_from_json_string(report.out, "report");
  ASSERT_TRUE(from_report.ok()) << from_report.error().message();
  EXPECT_EQ(profile_to_json_string(*from_report), profile_to_json_string(read_run(dir)));
}

// CPU ticks a running process has used so far (utime + stime of /proc/PID/stat).
std::uint64_t cpu_ticks(pid_t pid) {
  const std::string path = "/proc/" + std::to_string(pid) + "/stat";
  Result<process_activity::TaskStat> stat =
      process_activity::parse_task_stat(::jouleprof::testing::read_file(path), path);
  return stat.ok() ? stat->own_ticks() : 0;
}

// The case: `run --idle` while something else keeps every CPU busy. Both warnings come,
// once each: the others did most of the work, and the idle window was not idle.
TEST(RunCommand, WarnsWhenOthersWorkAndTheIdleWindowIsBusy) {
  TempDir dir;
  Result<ChildProcess> burn = ChildProcess::spawn(
      {::jouleprof::testing::jouleprof_binary(), "burn", "--seconds", "600", "--threads", "2"});
  ASSERT_TRUE(burn.ok());
  while (cpu_ticks(burn->pid()) < 5 && !burn->has_ended())
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  const Invocation inv =
      run_jouleprof({"run", "--source", "cpu-estimate", "--idle", "0.3", "--no-history", "--output",
                     (dir.path() / "run").string(), "--", "sleep", "0.3"},
                    dir);
  kill(burn->pid(), SIGTERM);
  (void)burn->wait();
  ASSERT_EQ(inv.exit_code, 0) << inv.err;
  const auto count = [&](std::string_view text) {
    std::size_t n = 0;
    for (std::size_t at = inv.err.find(text); at != std::string::npos;
         at = inv.err.find(text, at + 1))
      ++n;
    return n;
  };
  EXPECT_EQ(count("other processes did more than 20 % of the work during the run (cpu "), 1U)
      << inv.err;
  EXPECT_EQ(count("the idle baseline was not idle (cpu "), 1U) << inv.err;
  EXPECT_EQ(count("net figures are unreliable"), 1U) << inv.err;
  const Profile p = read_run(dir);
  ASSERT_TRUE(p.channels.at(0).process.has_value());
  EXPECT_GT(*p.channels.at(0).process->others_activity_share, 0.5);
}

// `run --spans`: two spans side by side on two threads of the command, one thread spinning, the
// other waiting. Each thread's CPU time weighs its span, so the busy one gets most of the energy
// (an equal split would give each half).
TEST(RunCommand, SpansWeighByTheirThreadsCpuTime) {
  TempDir dir;
  const Invocation inv =
      run_jouleprof({"run", "--spans", "--simulate", "20", "--no-history", "--output",
                     (dir.path() / "run").string(), "--", JOULEPROF_THREADS_CHILD},
                    dir);
  ASSERT_EQ(inv.exit_code, 0) << inv.err;
  const Profile p = read_run(dir);
  ASSERT_TRUE(p.tree.has_value());
  const ProfileNode* busy = p.tree->child("busy");
  const ProfileNode* waiting = p.tree->child("waiting");
  ASSERT_TRUE(busy != nullptr && waiting != nullptr) << inv.err;
  EXPECT_GT(busy->energy_j, 3.0 * waiting->energy_j)
      << "busy " << busy->energy_j << " J, waiting " << waiting->energy_j << " J";
  ASSERT_FALSE(p.attribution.empty());
  EXPECT_EQ(p.attribution[0].diagnostics.threads_weighed_by_cpu_time, 2u);
}

// `run --idle --spans`: attributing the spans adds the tree to what the run measured. The
// channel keeps its idle baseline and net energy, the tree splits static from dynamic with that
// baseline, and the tree sums to the channel's energy (one rule reads the counter for both).
TEST(RunCommand, SpansKeepTheIdleBaselineAndTheNetEnergy) {
  TempDir dir;
  const Invocation inv =
      run_jouleprof({"run", "--spans", "--simulate", "20", "--idle", "0.3", "--no-history",
                     "--output", (dir.path() / "run").string(), "--", JOULEPROF_THREADS_CHILD},
                    dir);
  ASSERT_EQ(inv.exit_code, 0) << inv.err;
  const Profile p = read_run(dir);
  ASSERT_TRUE(p.tree.has_value());
  ASSERT_EQ(p.channels.size(), 1U);
  const ChannelSummary& c = p.channels[0];
  ASSERT_TRUE(c.idle_power_w.has_value()) << inv.err;
  ASSERT_TRUE(c.net_energy_j.has_value());
  EXPECT_NEAR(*c.idle_power_w, 20.0, 0.2);  // --simulate 20: 20 W throughout
  // Energy less idle × time, never below 0 (a run at its baseline is noise around it).
  EXPECT_NEAR(*c.net_energy_j, std::max(0.0, c.energy_j - *c.idle_power_w * ns_to_s(c.duration_ns)),
              1e-9);
  ASSERT_TRUE(p.tree->static_energy_j.has_value());
  EXPECT_NEAR(p.tree->energy_j, c.energy_j, 1e-9 * c.energy_j);
}

// Whether `pid` has a handler for SIGINT (the SigCgt mask of /proc/PID/status).
bool catches_sigint(pid_t pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("SigCgt:", 0) != 0) continue;
    const unsigned long long mask = std::stoull(line.substr(7), nullptr, 16);
    return (mask & (1ULL << (SIGINT - 1))) != 0;
  }
  return false;
}

// The observed process ends when the test says so, after jouleprof has begun to watch it: no
// race with jouleprof's start-up on a loaded machine.
TEST(RunCommand, PidObservesARunningProcessUntilItExits) {
  TempDir dir;
  Result<ChildProcess> sleeper = ChildProcess::spawn({"sleep", "600"});
  ASSERT_TRUE(sleeper.ok());
  const std::string pid = std::to_string(sleeper->pid());
  Result<ChildProcess> jouleprof =
      ::jouleprof::testing::start_jouleprof({"run", "--simulate", "5", "--no-history", "--output",
                                             (dir.path() / "run").string(), "--pid", pid},
                                            dir);
  ASSERT_TRUE(jouleprof.ok());
  // jouleprof catches SIGINT once it found the process and watches it.
  while (!catches_sigint(jouleprof->pid()) && !jouleprof->has_ended())
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  // This test process is the sleeper's parent: it ends and reaps it while jouleprof watches.
  ASSERT_EQ(kill(sleeper->pid(), SIGTERM), 0);
  (void)sleeper->wait();
  const Invocation inv = ::jouleprof::testing::finish(*jouleprof, dir);
  ASSERT_EQ(inv.exit_code, 0) << inv.err;
  const Profile p = read_run(dir);
  EXPECT_EQ(p.meta.command, (std::vector<std::string>{"--pid", pid}));
  EXPECT_EQ(p.meta.options.process.observed, "pid " + pid + " and its descendants");
  EXPECT_TRUE(p.channels.at(0).process.has_value());
}

TEST(RunCommand, CgroupObservesAGroupUntilSignalled) {
  TempDir dir;
  dir.write("root/proc/stat", "cpu  100 0 0 900 0 0 0 0 0 0\ncpu0 100 0 0 900 0 0 0 0 0 0\n");
  dir.write("root/sys/fs/cgroup/job.slice/cpu.stat", "usage_usec 250000\n");
  dir.write("root/sys/fs/cgroup/job.slice/cgroup.procs", "");
  const std::filesystem::path out = dir.path() / "run";
  Result<ChildProcess> jouleprof = ::jouleprof::testing::start_jouleprof(
      {"run", "--simulate", "5", "--no-history", "--sysfs-root", (dir.path() / "root").string(),
       "--output", out.string(), "--cgroup", "/job.slice"},
      dir);
  ASSERT_TRUE(jouleprof.ok());
  // Ctrl-C ends the observation once jouleprof catches it (before, it would end jouleprof).
  while (!catches_sigint(jouleprof->pid()) && !jouleprof->has_ended())
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  ASSERT_EQ(kill(jouleprof->pid(), SIGINT), 0);
  const Invocation inv = ::jouleprof::testing::finish(*jouleprof, dir);
  ASSERT_EQ(inv.exit_code, 0) << inv.err;
  const Profile p = read_run(dir);
  EXPECT_EQ(p.meta.command, (std::vector<std::string>{"--cgroup", "/job.slice"}));
  EXPECT_EQ(p.meta.options.process.observed, "cgroup /job.slice");
  const Series* usage = p.find_series("processes:cpu:cpu-time");
  ASSERT_NE(usage, nullptr);
  EXPECT_DOUBLE_EQ(usage->back().value, 0.25);
}

TEST(RunCommand, WhatToMeasureMustBeOneThing) {
  TempDir dir;
  Invocation inv = run_jouleprof({"run", "--simulate", "5", "--pid", "1", "--", "true"}, dir);
  EXPECT_EQ(inv.exit_code, 2) << inv.err;
  EXPECT_NE(inv.err.find("give one: a command after --, --pid PID or --cgroup PATH"),
            std::string::npos)
      << inv.err;
  inv = run_jouleprof({"run", "--simulate", "5", "--no-history", "--pid", "1073741823"}, dir);
  EXPECT_EQ(inv.exit_code, 1);
  EXPECT_NE(inv.err.find("no such process"), std::string::npos) << inv.err;
  inv = run_jouleprof({"run", "--simulate", "5", "--static-share", "half", "--", "true"}, dir);
  EXPECT_EQ(inv.exit_code, 2);
}

TEST(RunCommand, StaticShareNoneNeedsABaseline) {
  TempDir dir;
  Invocation inv = run_jouleprof({"run", "--simulate", "5", "--no-history", "--static-share",
                                  "none", "--output", (dir.path() / "a").string(), "--", "true"},
                                 dir);
  ASSERT_EQ(inv.exit_code, 0) << inv.err;
  EXPECT_NE(inv.err.find("static share 'none' needs the idle power of simulated:package"),
            std::string::npos)
      << inv.err;
  inv = run_jouleprof({"run", "--simulate", "5", "--no-history", "--static-share", "none", "--idle",
                       "0.2", "--output", (dir.path() / "b").string(), "--", "true"},
                      dir);
  ASSERT_EQ(inv.exit_code, 0) << inv.err;
  Result<Profile> p = read_profile_json((dir.path() / "b" / "profile.json").string());
  ASSERT_TRUE(p.ok());
  ASSERT_TRUE(p->channels.at(0).process.has_value());
  EXPECT_EQ(p->meta.options.process.static_share, StaticShare::kNone);
}

}  // namespace
}  // namespace jouleprof

namespace jouleprof::testing {
namespace {

// "99.8 J", "1.02 kJ" → joules.
double joules_of(const std::string& text) {
  std::size_t used = 0;
  const double value = std::stod(text, &used);
  const std::string unit = text.substr(used + 1, 2);
  if (unit == "kJ") return value * 1e3;
  if (unit == "mJ") return value * 1e-3;
  return value;
}

TEST(RunCommandEpochs, ProjectsTheRunFromItsEpochs) {
  TempDir dir;
  // 20 epochs of 0.1 s at a simulated 50 W: ≈ 5 J each. burn marks each epoch's begin, so epoch 1
  // leaves out the process starting. A loaded machine may stretch an epoch, so the projection is
  // checked against STEP on the recorded epochs, not against the total.
  const Invocation inv =
      run_jouleprof({"run", "--simulate", "50", "--epochs", "20", "--no-history", "--output",
                     (dir.path() / "out").string(), "--", jouleprof_binary(), "burn", "--seconds",
                     "2", "--threads", "1", "--epochs", "20"},
                    dir);
  ASSERT_EQ(inv.exit_code, 0) << inv.err;
  EXPECT_NE(inv.err.find("epoch 20/20"), std::string::npos) << inv.err;
  const auto at = inv.err.rfind("projected total ");
  ASSERT_NE(at, std::string::npos) << inv.err;
  const double projected = joules_of(inv.err.substr(at + 16));

  Result<Profile> p = read_profile_json((dir.path() / "out" / "profile.json").string());
  ASSERT_TRUE(p.ok()) << p.error().message();
  ASSERT_EQ(p->epochs.size(), 20u);
  double measured = 0.0;
  std::vector<double> energies;
  for (const EpochSummary& e : p->epochs) {
    measured += e.energy_j;
    energies.push_back(e.energy_j);
  }
  EXPECT_GT(measured, 95.0) << "no epoch is lost, the last ones included";
  // The printed projection is STEP's on the epochs the profile holds (3 significant digits);
  // how close it comes to the measured total depends on how steady the loaded machine kept them.
  const Result<LiveProjection> step = project_live(energies, 20, StepOptions{});
  ASSERT_TRUE(step.ok()) << step.error().message();
  EXPECT_NEAR(projected, step->projection.total_j, 0.006 * step->projection.total_j) << inv.err;
  // Epoch 1 starts at burn's first epoch_begin, after the child process started.
  EXPECT_EQ(p->meta.options.epochs.first_begin, EpochStart::kBeginMark);
  EXPECT_GT(p->epochs[0].begin_ns, p->meta.begin_ns);
  // The final summary lists every epoch's energy.
  EXPECT_NE(inv.err.find("epochs: 20 in "), std::string::npos) << inv.err;
}

TEST(RunCommandEpochs, ALogGetsPlainLinesAndShortEpochsAWarning) {
  TempDir dir;
  // stderr is a file here: no carriage return, no ANSI code, one plain line per epoch. Epochs of
  // 5 ms on a counter read every 10 ms are shorter than 10 counter updates.
  const Invocation inv =
      run_jouleprof({"run", "--simulate", "20", "--epochs", "5", "--no-history", "--output",
                     (dir.path() / "out").string(), "--", jouleprof_binary(), "burn", "--seconds",
                     "0.025", "--threads", "1", "--epochs", "5"},
                    dir);
  ASSERT_EQ(inv.exit_code, 0) << inv.err;
  for (const char c : inv.err) {
    EXPECT_FALSE(static_cast<unsigned char>(c) < 0x20 && c != '\n') << static_cast<int>(c);
  }
  EXPECT_EQ(std::count(inv.err.begin(), inv.err.end(), '\r'), 0);
  for (int e = 1; e <= 5; ++e)
    EXPECT_NE(inv.err.find(fmt::format("[jouleprof] epoch {}/5: ", e)), std::string::npos);
  EXPECT_NE(inv.err.find("shorter than 10 counter updates"), std::string::npos) << inv.err;
  EXPECT_NE(inv.err.find("Make the epochs longer"), std::string::npos) << inv.err;
}

TEST(RunCommandEpochs, APlanShorterThanSPlusWSaysSTEPCannotProjectIt) {
  TempDir dir;
  // 3 planned epochs never reach STEP's s + w = 15: no line may promise a projection.
  const Invocation inv =
      run_jouleprof({"run", "--simulate", "20", "--epochs", "3", "--no-history", "--output",
                     (dir.path() / "out").string(), "--", jouleprof_binary(), "burn", "--seconds",
                     "0.03", "--threads", "1", "--epochs", "3"},
                    dir);
  ASSERT_EQ(inv.exit_code, 0) << inv.err;
  EXPECT_NE(inv.err.find("[jouleprof] epoch 3/3: "), std::string::npos) << inv.err;
  EXPECT_NE(inv.err.find("no STEP projection: the planned 3 epochs are fewer than its s + w = 15"),
            std::string::npos)
      << inv.err;
  EXPECT_EQ(inv.err.find("projects once"), std::string::npos) << inv.err;
}

// A job that begins an epoch and never ends it: that epoch is in no epoch's figure, and the
// profile says so instead of leaving it out silently.
TEST(RunCommandEpochs, AnEpochBegunButNeverEndedIsAWarning) {
  TempDir dir;
  const std::string job =
      "import os, time\n"
      "def report(kind):\n"
      "    with open(os.environ['JOULEPROF_EPOCH_FILE'], 'a') as f:\n"
      "        f.write(f'{kind} {time.monotonic_ns()}\\n')\n"
      "report('begin'); time.sleep(0.05); report('end')\n"
      "report('begin'); time.sleep(0.2)\n";
  const Invocation inv =
      run_jouleprof({"run", "--simulate", "20", "--epochs", "4", "--no-history", "--output",
                     (dir.path() / "out").string(), "--", "/usr/bin/python3", "-c", job},
                    dir);
  ASSERT_EQ(inv.exit_code, 0) << inv.err;
  auto p = read_profile_json((dir.path() / "out" / "profile.json").string());
  ASSERT_TRUE(p.ok()) << p.error().message();
  EXPECT_EQ(p->epochs.size(), 1u);
  const bool warned = std::any_of(p->warnings.begin(), p->warnings.end(), [](const std::string& w) {
    return w.starts_with("epoch 2 began (epoch_begin) ") &&
           w.find("never ended") != std::string::npos;
  });
  EXPECT_TRUE(warned) << inv.err;
}

}  // namespace
}  // namespace jouleprof::testing
