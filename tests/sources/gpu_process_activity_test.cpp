#include "sources/gpu_process_activity.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <vector>

#include "jouleprof/process_share.hpp"

namespace jouleprof {
namespace {

const std::vector<pid_t> kObserved = {100, 101};  // sorted, as ObservedProcesses::pids gives it

double observed_share(const GpuProcessActivity& a) {
  return a.count(GpuActivityCount::kObservedBusy) / a.count(GpuActivityCount::kBusy);
}

TEST(GpuProcessActivity, UtilisationSamplesSplitTheBusyTime) {
  GpuProcessActivity a(0, kNsPerS);
  const std::vector<ProcessUtilisation> first = {{100, 0.60}, {200, 0.20}};
  const std::vector<ProcessUtilisation> second = {{101, 0.15}, {200, 0.05}};
  a.add_utilisation(200 * kNsPerMs, 0.2, first, kObserved);
  a.add_utilisation(400 * kNsPerMs, 0.2, second, kObserved);
  // Observed: (0.60 + 0.15) × 0.2 s; every process: (0.80 + 0.20) × 0.2 s; idle the rest.
  EXPECT_DOUBLE_EQ(a.count(GpuActivityCount::kObservedBusy), 0.15);
  EXPECT_DOUBLE_EQ(a.count(GpuActivityCount::kBusy), 0.2);
  EXPECT_DOUBLE_EQ(a.count(GpuActivityCount::kIdle), 0.2);
  EXPECT_DOUBLE_EQ(observed_share(a), 0.75);
  EXPECT_EQ(a.as_of_ns(), 400 * kNsPerMs);
}

TEST(GpuProcessActivity, ALongSilenceIsIdleNotOneLongSample) {
  GpuProcessActivity a(0, kNsPerS);
  const std::vector<ProcessUtilisation> busy = {{100, 1.0}};
  a.add_utilisation(5 * kNsPerS, 5.0, busy, kObserved);
  EXPECT_DOUBLE_EQ(a.count(GpuActivityCount::kBusy), 1.0);
  EXPECT_DOUBLE_EQ(a.count(GpuActivityCount::kIdle), 4.0);
}

TEST(GpuProcessActivity, UtilisationOutsideZeroToOneIsClamped) {
  GpuProcessActivity a(0, kNsPerS);
  const std::vector<ProcessUtilisation> odd = {{100, 1.7}, {200, -0.3}};
  a.add_utilisation(kNsPerS / 2, 0.5, odd, kObserved);
  EXPECT_DOUBLE_EQ(a.count(GpuActivityCount::kObservedBusy), 0.5);
  EXPECT_DOUBLE_EQ(a.count(GpuActivityCount::kBusy), 0.5);
  EXPECT_DOUBLE_EQ(a.count(GpuActivityCount::kIdle), 0.0);
}

TEST(GpuProcessActivity, HoldersGiveSharesOfOneOrZero) {
  GpuProcessActivity a(0, kNsPerS);
  const std::vector<pid_t> ours = {101};
  const std::vector<pid_t> theirs = {300};
  EXPECT_TRUE(a.add_holders(kNsPerS, 1.0, ours, kObserved).empty());
  EXPECT_TRUE(a.add_holders(2 * kNsPerS, 1.0, theirs, kObserved).empty());
  EXPECT_TRUE(a.add_holders(3 * kNsPerS, 1.0, {}, kObserved).empty());
  EXPECT_DOUBLE_EQ(a.count(GpuActivityCount::kObservedBusy), 1.0);
  EXPECT_DOUBLE_EQ(a.count(GpuActivityCount::kBusy), 2.0);
  EXPECT_DOUBLE_EQ(a.count(GpuActivityCount::kIdle), 1.0);
  EXPECT_EQ(a.as_of_ns(), 3 * kNsPerS);
}

TEST(GpuProcessActivity, HoldersSideBySideCountNothingAndNameTheOthers) {
  GpuProcessActivity a(0, kNsPerS);
  const std::vector<pid_t> mixed = {100, 300, 301};
  EXPECT_EQ(a.add_holders(kNsPerS, 1.0, mixed, kObserved), (std::vector<pid_t>{300, 301}));
  EXPECT_DOUBLE_EQ(a.count(GpuActivityCount::kBusy), 0.0);
  EXPECT_DOUBLE_EQ(a.count(GpuActivityCount::kIdle), 0.0);
}

TEST(GpuProcessActivity, ChannelsNameTheRuleAndTheirCounts) {
  const auto channels = gpu_activity_channels("gpu-utilisation", "a library call on gpu 0");
  EXPECT_EQ(channels[0].id_suffix, "observed");
  EXPECT_EQ(channels[0].domain, "gpu-utilisation");
  EXPECT_EQ(channels[0].count, GpuActivityCount::kObservedBusy);
  EXPECT_EQ(channels[1].domain, "busy");
  EXPECT_EQ(channels[1].count, GpuActivityCount::kBusy);
  EXPECT_EQ(channels[2].domain, "idle");
  EXPECT_EQ(channels[2].count, GpuActivityCount::kIdle);
  for (const GpuActivityChannel& c : channels) {
    EXPECT_NE(c.description.find("a library call on gpu 0"), std::string::npos) << c.description;
  }
}

// Any GPU source's channels, not only NVML's: the attributor pairs them with the energy of the
// GPU's device by kind, device and domain.
TEST(GpuProcessActivity, ChannelsOfAnotherVendorPairWithItsGpusEnergy) {
  std::vector<Channel> channels;
  Channel energy;
  energy.id = "rocm-smi:1:energy";
  energy.source = "rocm-smi";
  energy.device = "gpu1";
  energy.kind = ChannelKind::kEnergyCounter;
  channels.push_back(energy);
  for (GpuActivityChannel& a : gpu_activity_channels("gpu-utilisation", "cu_occupancy")) {
    Channel c;
    c.id = fmt::format("rocm-smi:1:{}", a.id_suffix);
    c.source = "rocm-smi";
    c.device = "gpu1";
    c.kind = ChannelKind::kBusyTime;
    c.domain = a.domain;
    c.provenance_detail = a.description;
    channels.push_back(c);
  }
  const std::optional<DeviceActivity> found = find_device_activity(channels, "gpu1");
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(channels[found->observed].id, "rocm-smi:1:observed");
  EXPECT_EQ(channels[found->busy].id, "rocm-smi:1:busy");
  ASSERT_TRUE(found->idle.has_value());
  EXPECT_EQ(channels[*found->idle].id, "rocm-smi:1:idle");
  EXPECT_EQ(found->rule, "gpu-utilisation");
  EXPECT_FALSE(find_device_activity(channels, "gpu0").has_value());
}

}  // namespace
}  // namespace jouleprof
