#include <gtest/gtest.h>
#include <stdlib.h>

#include "export/fake_source.hpp"
#include "jouleprof/exporter.hpp"
#include "jouleprof/sources.hpp"
#include "test_support.hpp"

namespace jouleprof {
namespace {

struct Rig {
  testing::FakeSource* fake = nullptr;
  std::unique_ptr<EnergyPoller> poller;
};

Rig make_rig() {
  Channel counter{
      "c", "fake", "cpu0", "package", ChannelKind::kEnergyCounter, Provenance::kMeasured,
      "",  "",     0,      0};
  Channel power{"p", "fake", "gpu0", "gpu", ChannelKind::kPower, Provenance::kEstimated,
                "",  "",     0,      0};
  Channel temp{"t", "fake", "gpu0", "gpu", ChannelKind::kTemperature, Provenance::kMeasured,
               "",  "",     0,      0};
  auto fake =
      std::make_unique<testing::FakeSource>("fake", std::vector<Channel>{counter, power, temp});
  Rig rig;
  rig.fake = fake.get();
  SourceDiscovery d;
  d.available.push_back(std::move(fake));
  d.unavailable.push_back(
      UnavailableSource{"nvml", Availability{false, "no driver", "install it"}});
  rig.poller = std::make_unique<EnergyPoller>(std::move(d), EnergyPollerOptions{});
  return rig;
}

void set_all(testing::FakeSource& f, TimeNs t, double joules, double watts, double celsius) {
  f.set(0, t, joules);
  f.set(1, t, watts);
  f.set(2, t, celsius);
}

TEST(EnergyPoller, CountsCounterDifferencesAndIntegratesPower) {
  Rig rig = make_rig();
  EXPECT_EQ(rig.poller->interval_ns(), 20 * kNsPerMs);  // the fake's default period
  set_all(*rig.fake, 1 * kNsPerS, 1000.0, 100.0,
          40.0);  // the counter's first value is only a baseline
  rig.poller->poll_once();
  set_all(*rig.fake, 2 * kNsPerS, 1010.0, 200.0, 41.0);
  rig.poller->poll_once();
  set_all(*rig.fake, 4 * kNsPerS, 1050.0, 200.0, 42.0);
  rig.poller->poll_once();
  const ExporterSnapshot s = rig.poller->snapshot();
  ASSERT_EQ(s.channels.size(), 3u);
  EXPECT_DOUBLE_EQ(s.channels[0].energy_j, 50.0);
  EXPECT_DOUBLE_EQ(*s.channels[0].power_w, 20.0);           // 40 J over 2 s
  EXPECT_DOUBLE_EQ(s.channels[1].energy_j, 150.0 + 400.0);  // trapezoid: 1 s at 100→200, 2 s at 200
  EXPECT_DOUBLE_EQ(*s.channels[1].power_w, 200.0);
  EXPECT_DOUBLE_EQ(*s.channels[2].value, 42.0);
  ASSERT_EQ(s.sources.size(), 2u);
  EXPECT_TRUE(s.sources[0].up);
  EXPECT_FALSE(s.sources[1].up);
  EXPECT_EQ(s.sources[1].reason, "no driver");
  EXPECT_EQ(s.sources[1].fix, "install it");
}

// With busy-time channels beside a counter, the poller keeps the observed processes' share of
// it, interval by interval (the attributor's rule, the static part by CPU time).
TEST(EnergyPoller, KeepsTheObservedProcessesShareOfEachCounter) {
  Channel counter{"rapl:package-0",      "fake", "cpu0", "package", ChannelKind::kEnergyCounter,
                  Provenance::kMeasured, "",     "",     0,         0};
  Channel observed{"processes:cpu:cpu-time", "processes", "cpu", "cpu-time", ChannelKind::kBusyTime,
                   Provenance::kMeasured,    "",          "",    0,          0};
  Channel busy{"processes:cpu:busy",  "processes", "cpu", "busy", ChannelKind::kBusyTime,
               Provenance::kMeasured, "",          "",    0,      0};
  auto fake =
      std::make_unique<testing::FakeSource>("fake", std::vector<Channel>{counter, observed, busy});
  testing::FakeSource& f = *fake;
  SourceDiscovery d;
  d.available.push_back(std::move(fake));
  d.observed = ObservedProcesses::process_tree(42);
  EnergyPoller poller(std::move(d), EnergyPollerOptions{});
  const auto poll = [&](TimeNs t, double joules, double mine_s, double all_s) {
    f.set(0, t, joules);
    f.set(1, t, mine_s);
    f.set(2, t, all_s);
    poller.poll_once();
  };
  poll(kNsPerS, 100.0, 1.0, 2.0);      // baselines
  poll(2 * kNsPerS, 140.0, 1.5, 3.0);  // half of the work: 20 of 40 J
  poll(3 * kNsPerS, 150.0, 1.6, 3.0);  // ours ticked, the machine's not yet: waits
  poll(4 * kNsPerS, 170.0, 1.6, 3.4);  // 0.1 of 0.4 s over the two intervals: 7.5 of 30 J
  const ExporterSnapshot s = poller.snapshot();
  EXPECT_EQ(s.observed, "pid 42 and its descendants");
  ASSERT_EQ(s.process_shares.size(), 1U);
  EXPECT_EQ(s.process_shares[0].channel, 0U);
  EXPECT_EQ(s.process_shares[0].rule, "cpu-time");
  EXPECT_NEAR(s.process_shares[0].energy_j, 20.0 + 7.5, 1e-9);
  EXPECT_NEAR(*s.process_shares[0].share, 0.25, 1e-12);
  EXPECT_NEAR(*s.channels[1].value, 0.6, 1e-12);  // busy seconds since the exporter started
}

TEST(EnergyPoller, ACounterResetAddsNothingAndIsReported) {
  Rig rig = make_rig();
  set_all(*rig.fake, 1 * kNsPerS, 500.0, 0.0, 0.0);
  rig.poller->poll_once();
  set_all(*rig.fake, 2 * kNsPerS, 510.0, 0.0, 0.0);
  rig.poller->poll_once();
  set_all(*rig.fake, 3 * kNsPerS, 2.0, 0.0, 0.0);  // driver reloaded
  rig.poller->poll_once();
  set_all(*rig.fake, 4 * kNsPerS, 7.0, 0.0, 0.0);
  rig.poller->poll_once();
  const ExporterSnapshot s = rig.poller->snapshot();
  EXPECT_DOUBLE_EQ(s.channels[0].energy_j, 15.0);
  EXPECT_TRUE(s.sources[0].up);
  EXPECT_NE(s.sources[0].reason.find("1 counter reset"), std::string::npos) << s.sources[0].reason;
}

TEST(EnergyPoller, AFailedReadMarksTheSourceDownWithoutInventingEnergy) {
  Rig rig = make_rig();
  set_all(*rig.fake, 1 * kNsPerS, 0.0, 10.0, 0.0);
  rig.poller->poll_once();
  rig.fake->fail(0, "EIO on energy_uj");
  rig.fake->set(1, 2 * kNsPerS, 10.0);
  rig.poller->poll_once();
  ExporterSnapshot s = rig.poller->snapshot();
  EXPECT_FALSE(s.sources[0].up);
  EXPECT_EQ(s.sources[0].reason, "c: EIO on energy_uj");
  EXPECT_DOUBLE_EQ(s.channels[0].energy_j, 0.0);
  rig.fake->set(0, 3 * kNsPerS, 30.0);  // back: the whole 2 s since the last good read counts once
  rig.fake->set(1, 3 * kNsPerS, 10.0);
  rig.poller->poll_once();
  s = rig.poller->snapshot();
  EXPECT_TRUE(s.sources[0].up);
  EXPECT_DOUBLE_EQ(s.channels[0].energy_j, 30.0);
}

TEST(EnergyPoller, TheThreadKeepsPolling) {
  Rig rig = make_rig();
  set_all(*rig.fake, 1, 0.0, 0.0, 0.0);
  rig.poller->start();
  rig.poller->stop();
  EXPECT_TRUE(rig.poller->snapshot().sources[0].up);  // start() took the first reading
}

// AMD and Intel GPUs (the fake ROCm SMI and Level Zero libraries) are exported like any source.
TEST(EnergyPoller, TheGpuBackendsAreExported) {
  ::jouleprof::testing::hide_gpu_libraries();
  ::setenv("JOULEPROF_ROCM_SMI_LIBRARY", FAKE_ROCM_SMI_PATH, 1);
  ::setenv("JOULEPROF_LEVEL_ZERO_LIBRARY", FAKE_LEVEL_ZERO_PATH, 1);
  SourceOptions options;
  options.selected = {"rocm-smi", "level-zero"};
  Result<SourceDiscovery> found = discover_sources(options);
  ASSERT_TRUE(found.ok());
  ASSERT_EQ(found->available.size(), 2U);
  EnergyPoller poller(std::move(found).value(), EnergyPollerOptions{});
  poller.poll_once();
  poller.poll_once();
  const std::string text = render_exposition(poller.snapshot(), ExpositionFormat::kPrometheusText);
  for (const char* expected :
       {"channel=\"rocm-smi:0:energy\"", "channel=\"level-zero:0:card\"", "device=\"gpu0\"",
        "device=\"gpu2\"", "jouleprof_source_up{source=\"rocm-smi\"} 1",
        "jouleprof_source_up{source=\"level-zero\"} 1"}) {
    EXPECT_NE(text.find(expected), std::string::npos) << expected << " in\n" << text;
  }
  ::unsetenv("JOULEPROF_ROCM_SMI_LIBRARY");
  ::unsetenv("JOULEPROF_LEVEL_ZERO_LIBRARY");
}

}  // namespace
}  // namespace jouleprof
