#include <gtest/gtest.h>
#include <unistd.h>

#include <map>

#include "fake_proc.hpp"
#include "jouleprof/channel_summary.hpp"
#include "jouleprof/process_share.hpp"
#include "sources/backends.hpp"
#include "testing/shared_cpu_simulator.hpp"

namespace jouleprof {
namespace {

using attribution::SharedCpuOptions;
using attribution::SharedCpuRun;
using attribution::simulate_shared_cpu;
using testing::FakeProc;
using testing::FakeTask;

const double kTicksPerS = static_cast<double>(sysconf(_SC_CLK_TCK));

Profile profile_of(SharedCpuRun run, std::optional<double> idle_power_w) {
  Profile p;
  p.meta.begin_ns = run.begin_ns;
  p.meta.end_ns = run.end_ns;
  p.series.push_back(std::move(run.energy));
  p.series.push_back(std::move(run.a_cpu_time));
  p.series.push_back(std::move(run.busy));
  p.series.push_back(std::move(run.idle));
  ChannelSummary summary = summarize_channel(p.series[0], p.meta.begin_ns, p.meta.end_ns, {});
  summary.idle_power_w = idle_power_w;
  p.channels.push_back(summary);
  return p;
}

// The known answer: A has 75 % of the busy ticks, B 25 %; A's attributed dynamic energy
// is within 1 % of the truth, on several seeds.
TEST(ProcessShares, KnownAnswerOnASimulatedSharedMachine) {
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    SharedCpuOptions options;
    options.seed = seed;
    const SharedCpuRun truth = simulate_shared_cpu(options);
    const double a_truth_j = truth.a_dynamic_j;
    const double static_j = truth.static_j;
    const double a_tick_share =
        static_cast<double>(truth.a_ticks) / static_cast<double>(truth.busy_ticks);
    EXPECT_NEAR(a_tick_share, 0.75, 0.02) << "seed " << seed;
    Profile p = profile_of(simulate_shared_cpu(options), options.idle_power_w);
    ASSERT_TRUE(attribute_process_shares(p, ProcessShareOptions{}).ok());
    const ChannelSummary& c = p.channels[0];
    ASSERT_TRUE(c.process->dynamic_energy_j.has_value());
    EXPECT_NEAR(*c.process->dynamic_energy_j, a_truth_j, 0.01 * a_truth_j) << "seed " << seed;
    EXPECT_EQ(c.process->rule, "cpu-time");
    ASSERT_TRUE(c.process->others_activity_share.has_value());
    EXPECT_NEAR(*c.process->others_activity_share, 1.0 - a_tick_share, 0.005);

    // The static part by the three rules: the figures differ by exactly what the rule gives.
    for (const StaticShare rule : {StaticShare::kNone, StaticShare::kAll}) {
      Profile q = profile_of(simulate_shared_cpu(options), options.idle_power_w);
      ProcessShareOptions by_rule;
      by_rule.static_share = rule;
      ASSERT_TRUE(attribute_process_shares(q, by_rule).ok());
      const double expected = rule == StaticShare::kNone ? a_truth_j : a_truth_j + static_j;
      EXPECT_NEAR(q.channels[0].process->energy_j, expected, 0.01 * expected)
          << to_string(rule) << ", seed " << seed;
    }
  }
}

// The rule's blind spot, pinned down: when A draws more per CPU-second than B, a CPU-time share
// gives A less than it used (docs/sharing.md "Limits").
TEST(ProcessShares, ProcessesThatDrawDifferentlyPerCpuAreMisSharedAsDocumented) {
  SharedCpuOptions options;
  options.cpu_power_a_w = 15.0;
  options.cpu_power_b_w = 5.0;
  const SharedCpuRun truth = simulate_shared_cpu(options);
  Profile p = profile_of(simulate_shared_cpu(options), options.idle_power_w);
  ASSERT_TRUE(attribute_process_shares(p, ProcessShareOptions{}).ok());
  const double attributed = *p.channels[0].process->dynamic_energy_j;
  // A's truth share of the dynamic energy is 0.75·15 / (0.75·15 + 0.25·5) = 0.9; the rule says
  // its CPU-time share, 0.75.
  const double dynamic = truth.a_dynamic_j + truth.b_dynamic_j;
  EXPECT_NEAR(truth.a_dynamic_j / dynamic, 0.9, 0.01);
  EXPECT_NEAR(attributed / dynamic, 0.75, 0.02);
}

TEST(ProcessShares, TheCpuTimeRuleNeedsNoBaselineTheOthersDo) {
  SharedCpuOptions options;
  Profile p = profile_of(simulate_shared_cpu(options), std::nullopt);
  ASSERT_TRUE(attribute_process_shares(p, ProcessShareOptions{}).ok());
  ASSERT_TRUE(p.channels[0].process.has_value());
  EXPECT_FALSE(p.channels[0].process->dynamic_energy_j.has_value());
  EXPECT_NEAR(p.channels[0].process->share, 0.75, 0.03);

  Profile q = profile_of(simulate_shared_cpu(options), std::nullopt);
  ProcessShareOptions none;
  none.static_share = StaticShare::kNone;
  ASSERT_TRUE(attribute_process_shares(q, none).ok());
  EXPECT_FALSE(q.channels[0].process.has_value());
  ASSERT_FALSE(q.warnings.empty());
  EXPECT_NE(q.warnings.back().find("static share 'none' needs the idle power of sim:package"),
            std::string::npos)
      << q.warnings.back();
}

bool has_warning(const Profile& p, std::string_view text) {
  for (const std::string& w : p.warnings) {
    if (w.find(text) != std::string::npos) return true;
  }
  return false;
}

TEST(ProcessShares, WarnsOnceWhenOthersDidMuchOfTheWork) {
  Profile p = profile_of(simulate_shared_cpu(SharedCpuOptions{}), 20.0);
  ASSERT_TRUE(attribute_process_shares(p, ProcessShareOptions{}).ok());
  EXPECT_TRUE(has_warning(p, "other processes did more than 20 % of the work")) << p.warnings[0];
  EXPECT_TRUE(has_warning(p, "(cpu "));
  SharedCpuOptions mostly_mine;
  mostly_mine.a_share_of_busy = 0.95;
  Profile q = profile_of(simulate_shared_cpu(mostly_mine), 20.0);
  ASSERT_TRUE(attribute_process_shares(q, ProcessShareOptions{}).ok());
  EXPECT_FALSE(has_warning(q, "other processes did"));
}

TEST(ProcessShares, WarnsWhenTheIdleBaselineWasBusy) {
  Profile p = profile_of(simulate_shared_cpu(SharedCpuOptions{}), 20.0);
  p.meta.options.idle.begin_ns = 0;
  p.meta.options.idle.end_ns = 2 * kNsPerS;
  ASSERT_TRUE(attribute_process_shares(p, ProcessShareOptions{}).ok());
  EXPECT_TRUE(has_warning(p, "the idle baseline was not idle (cpu ")) << p.warnings.size();
  EXPECT_TRUE(has_warning(p, "net figures are unreliable"));
}

TEST(ProcessShares, AChannelWithoutARuleSaysItIsShared) {
  Profile p = profile_of(simulate_shared_cpu(SharedCpuOptions{}), 20.0);
  Channel battery;
  battery.id = "power-supply:BAT0";
  battery.device = "battery BAT0";
  battery.kind = ChannelKind::kPower;
  Series s(battery);
  ASSERT_TRUE(s.append(0, 10.0).ok());
  ASSERT_TRUE(s.append(p.meta.end_ns, 10.0).ok());
  p.channels.push_back(summarize_channel(s, p.meta.begin_ns, p.meta.end_ns, {}));
  p.series.push_back(std::move(s));
  ASSERT_TRUE(attribute_process_shares(p, ProcessShareOptions{}).ok());
  EXPECT_FALSE(p.channels[1].process.has_value());
  EXPECT_TRUE(has_warning(p, "power-supply:BAT0: no per-process rule applies to its device"));
  // The total of the observed processes leaves it out, and the machine total keeps it.
  EXPECT_NEAR(*p.total_process_energy_j(), p.channels[0].process->energy_j, 1e-12);
}

TEST(ProcessShares, AGapInTheActivityLeavesItsEnergyOutAndSaysSo) {
  SharedCpuRun run = simulate_shared_cpu(SharedCpuOptions{});
  run.a_cpu_time.add_gap({5 * kNsPerS, 7 * kNsPerS, "permission denied"});
  Profile p = profile_of(std::move(run), 20.0);
  ASSERT_TRUE(attribute_process_shares(p, ProcessShareOptions{}).ok());
  EXPECT_TRUE(has_warning(p, "the observed processes' share is unknown for 2."));
  EXPECT_TRUE(has_warning(p, "left out of its process figure"));
}

TEST(ProcessShares, DeviceActivityFallsBackFromPackagesToTheWholeCpu) {
  std::vector<Channel> channels(4);
  const auto busy_time = [](std::string id, std::string device, std::string domain) {
    Channel c;
    c.id = std::move(id);
    c.device = std::move(device);
    c.domain = std::move(domain);
    c.kind = ChannelKind::kBusyTime;
    return c;
  };
  channels[0] = busy_time("processes:cpu:cpu-time", "cpu", "cpu-time");
  channels[1] = busy_time("processes:cpu:busy", "cpu", "busy");
  channels[2] = busy_time("processes:cpu1:cpu-time", "cpu1", "cpu-time");
  channels[3] = busy_time("processes:cpu1:busy", "cpu1", "busy");
  EXPECT_EQ(find_device_activity(channels, "cpu0")->observed, 0U);
  EXPECT_EQ(find_device_activity(channels, "cpu1")->observed, 2U);
  EXPECT_EQ(find_device_activity(channels, "platform")->busy, 1U);
  EXPECT_EQ(find_device_activity(channels, "cpu")->rule, "cpu-time");
  EXPECT_FALSE(find_device_activity(channels, "gpu0").has_value());
  EXPECT_FALSE(find_device_activity(channels, "battery BAT0").has_value());
}

TEST(ProcessShares, StaticShareNamesRoundTrip) {
  for (const StaticShare s : {StaticShare::kCpuTime, StaticShare::kNone, StaticShare::kAll}) {
    EXPECT_EQ(static_share_from_string(to_string(s)), s);
  }
  EXPECT_FALSE(static_share_from_string("half").has_value());
  EXPECT_DOUBLE_EQ(interval_process_energy_j(10.0, 4.0, 0.5, StaticShare::kCpuTime), 5.0);
  EXPECT_DOUBLE_EQ(interval_process_energy_j(10.0, 4.0, 0.5, StaticShare::kNone), 3.0);
  EXPECT_DOUBLE_EQ(interval_process_energy_j(10.0, 4.0, 0.5, StaticShare::kAll), 7.0);
}

// Through the real process source on a fake /proc: two process trees with known ticks, a child
// that exits and is reaped between reads; the observed tree's share of each interval is exact.
TEST(ProcessShares, TheObservedTreesShareIsExactOnAFakeProc) {
  FakeProc proc;
  auto observed = ObservedProcesses::process_tree(300);
  SourceOptions options;
  options.sysfs_root = proc.root_string();
  options.observed = observed;
  proc.set_process({.pid = 300, .ppid = 1, .utime = 0});
  proc.set_process({.pid = 301, .ppid = 300, .utime = 0});
  proc.set_process({.pid = 400, .ppid = 1, .utime = 0});
  std::unique_ptr<Source> source = make_process_activity_source(options);
  ASSERT_TRUE(source->availability().available);

  Profile p;
  for (const Channel& c : source->channels()) p.series.emplace_back(c);
  Channel package;
  package.id = "rapl:package-0";
  package.device = "cpu0";
  package.kind = ChannelKind::kEnergyCounter;
  p.series.emplace_back(package);
  std::vector<Reading> r(source->channels().size());
  double energy_j = 0.0;
  const auto read = [&](double interval_energy_j) {
    source->read(r);
    for (std::size_t i = 0; i < r.size(); ++i) {
      ASSERT_TRUE(r[i].ok) << source->read_error(i);
      ASSERT_TRUE(p.series[i].append(r[i].t_ns, r[i].value).ok());
    }
    energy_j += interval_energy_j;
    ASSERT_TRUE(p.series.back().append(r[0].t_ns, energy_j).ok());
  };
  read(0.0);
  // Interval 1: tree 300 does 30 of 40 busy ticks (300: 10, 301: 20), 400 the other 10.
  proc.set_cpu_ticks(40, 160);
  proc.set_process({.pid = 300, .ppid = 1, .utime = 10});
  proc.set_process({.pid = 301, .ppid = 300, .utime = 20});
  proc.set_process({.pid = 400, .ppid = 1, .utime = 10});
  read(100.0);
  // Interval 2: 301 works 5 more ticks, exits and is reaped by 300 (25 ticks in its cutime);
  // 300 works 15: tree 20 of 80; 400 does 60.
  proc.set_cpu_ticks(120, 280);
  proc.remove_process(301);
  proc.set_process({.pid = 300, .ppid = 1, .utime = 25, .cutime = 25});
  proc.set_process({.pid = 400, .ppid = 1, .utime = 70});
  read(200.0);
  p.meta.begin_ns = p.series[0].begin_ns();
  p.meta.end_ns = p.series[0].end_ns();
  p.channels.push_back(summarize_channel(p.series.back(), p.meta.begin_ns, p.meta.end_ns, {}));
  ASSERT_TRUE(attribute_process_shares(p, ProcessShareOptions{}).ok());
  const ChannelSummary& c = p.channels[0];
  ASSERT_TRUE(c.process.has_value());
  EXPECT_NEAR(c.process->energy_j, 100.0 * 30 / 40 + 200.0 * 20 / 80, 1e-9);
  EXPECT_NEAR(*c.process->others_activity_share, 1.0 - 50.0 / 120.0, 1e-9);
  EXPECT_DOUBLE_EQ(p.series[0].back().value, 50 / kTicksPerS);
}

}  // namespace
}  // namespace jouleprof
