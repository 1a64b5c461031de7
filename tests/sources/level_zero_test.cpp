#include "sources/level_zero.hpp"

#include <dlfcn.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <chrono>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "jouleprof/observed_processes.hpp"
#include "sources/backends.hpp"
#include "sources/level_zero_api.hpp"

namespace jouleprof {
namespace {

// Points the backend at the fake loader and picks its scenario (see fake_level_zero.c).
class LevelZeroTest : public ::testing::Test {
 protected:
  void SetUp() override { ::setenv("JOULEPROF_LEVEL_ZERO_LIBRARY", FAKE_LEVEL_ZERO_PATH, 1); }
  void TearDown() override {
    ::unsetenv("JOULEPROF_LEVEL_ZERO_LIBRARY");
    ::unsetenv("FAKE_LEVEL_ZERO_SCENARIO");
  }
  static std::unique_ptr<Source> open(const char* scenario, SourceOptions options = {}) {
    ::setenv("FAKE_LEVEL_ZERO_SCENARIO", scenario, 1);
    return make_level_zero_source(options);
  }
};

std::map<std::string, std::size_t> index_by_id(const Source& source) {
  std::map<std::string, std::size_t> index;
  for (std::size_t i = 0; i < source.channels().size(); ++i) index[source.channels()[i].id] = i;
  return index;
}

std::vector<Reading> read_times(Source& source, int times) {
  std::vector<Reading> readings(source.channels().size());
  for (int k = 0; k < times; ++k) source.read(readings);
  return readings;
}

TEST_F(LevelZeroTest, DomainsNestAsTheApiDeclaresThem) {
  auto source = open("two_gpus");
  ASSERT_TRUE(source->availability().available) << source->availability().reason;
  EXPECT_EQ(source->name(), "level-zero");
  EXPECT_EQ(source->availability().reason, "");
  const auto index = index_by_id(*source);
  // Card ⊃ package ⊃ stacks (listed before the package by the driver); the card, listed twice,
  // appears once; the CPU device is skipped, so the second GPU is gpu1.
  const std::map<std::string, std::pair<std::string, std::string>> expected = {
      {"level-zero:0:card", {"card", ""}},
      {"level-zero:0:package", {"package", "level-zero:0:card"}},
      {"level-zero:0:stack-0", {"stack", "level-zero:0:package"}},
      {"level-zero:0:stack-1", {"stack", "level-zero:0:package"}},
      {"level-zero:0:temperature", {"gpu", ""}},
      {"level-zero:1:package", {"package", ""}}};
  ASSERT_EQ(index.size(), expected.size());
  for (const auto& [id, domain_and_parent] : expected) {
    ASSERT_TRUE(index.count(id)) << id;
    const Channel& channel = source->channels()[index.at(id)];
    EXPECT_EQ(channel.domain, domain_and_parent.first) << id;
    EXPECT_EQ(channel.parent_id, domain_and_parent.second) << id;
    EXPECT_EQ(channel.source, "level-zero");
    EXPECT_EQ(channel.provenance, Provenance::kMeasured);
    EXPECT_EQ(channel.kind, domain_and_parent.first == "gpu" ? ChannelKind::kTemperature
                                                             : ChannelKind::kEnergyCounter);
  }
  const Channel& card = source->channels()[index.at("level-zero:0:card")];
  EXPECT_EQ(card.device, "gpu0");
  EXPECT_EQ(card.label, "Fake Max 1550");
  EXPECT_EQ(source->channels()[index.at("level-zero:1:package")].device, "gpu1");
  for (const char* part : {"Intel gpu 0", "Fake Max 1550", "0x0bd5", "PCI 0000:3a:00.0",
                           "level-zero.update_period_ms", "a decrease is a reset"}) {
    EXPECT_NE(card.provenance_detail.find(part), std::string::npos)
        << part << " in " << card.provenance_detail;
  }
  EXPECT_NE(
      source->channels()[index.at("level-zero:0:stack-1")].provenance_detail.find("sub-device 1"),
      std::string::npos);
  EXPECT_EQ(card.nominal_period_ns, 0) << "not specified: the sampler measures it";
}

TEST_F(LevelZeroTest, SysmanIsEnabledBeforeZeInit) {
  ::unsetenv("ZES_ENABLE_SYSMAN");
  auto source = open("two_gpus");
  void* fake = ::dlopen(FAKE_LEVEL_ZERO_PATH, RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(fake, nullptr);
  using Flag = int (*)();
  const auto enabled = reinterpret_cast<Flag>(::dlsym(fake, "fake_level_zero_sysman_enabled"));
  ASSERT_NE(enabled, nullptr);
  EXPECT_EQ(enabled(), 1);
  ::dlclose(fake);
}

TEST_F(LevelZeroTest, ReadingsAreJoulesSinceTheFirstReadAndCelsius) {
  auto source = open("two_gpus");
  const auto index = index_by_id(*source);
  std::vector<Reading> readings = read_times(*source, 1);
  for (std::size_t i = 0; i < readings.size(); ++i) {
    EXPECT_TRUE(readings[i].ok) << source->channels()[i].id << ": " << source->read_error(i);
  }
  EXPECT_EQ(readings[index.at("level-zero:0:card")].value, 0.0);
  readings = read_times(*source, 2);
  EXPECT_NEAR(readings[index.at("level-zero:0:card")].value, 2 * 3000e-6, 1e-12);
  EXPECT_NEAR(readings[index.at("level-zero:0:package")].value, 2 * 2500e-6, 1e-12);
  EXPECT_NEAR(readings[index.at("level-zero:0:stack-0")].value, 2 * 1000e-6, 1e-12);
  EXPECT_NEAR(readings[index.at("level-zero:1:package")].value, 2 * 2500e-6, 1e-12);
  // The device-level GPU sensor, not the sub-device's.
  EXPECT_DOUBLE_EQ(readings[index.at("level-zero:0:temperature")].value, 55.5);
}

// A reading is placed when the driver captured it (the first capture taken as fresh), not when it
// was polled: the fake stamps each capture 1 ms after the one before, and the second read comes
// 3 ms or more after the first, so the capture lies between the two reads.
TEST_F(LevelZeroTest, ReadingsArePlacedByTheTimeTheCounterWasCaptured) {
  auto source = open("two_gpus");
  const auto index = index_by_id(*source);
  const std::size_t card = index.at("level-zero:0:card");
  const std::size_t temperature = index.at("level-zero:0:temperature");
  std::vector<Reading> readings = read_times(*source, 1);
  ASSERT_TRUE(readings[card].ok) << source->read_error(card);
  const TimeNs first = readings[card].t_ns;
  while (monotonic_now_ns() < first + 3 * kNsPerMs) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  readings = read_times(*source, 1);
  ASSERT_TRUE(readings[card].ok) << source->read_error(card);
  EXPECT_EQ(readings[card].t_ns, first + kNsPerMs);
  EXPECT_GE(readings[temperature].t_ns, first + 3 * kNsPerMs) << "a temperature has no stamp";
}

TEST_F(LevelZeroTest, ADecreaseIsAResetUnlessAWrapIsDeclared) {
  auto monotonic = open("wrap");
  const std::size_t package = index_by_id(*monotonic).at("level-zero:0:package");
  std::vector<Reading> readings = read_times(*monotonic, 3);  // 5000, 9000, then 3000
  EXPECT_FALSE(readings[package].ok);
  EXPECT_NE(monotonic->read_error(package).find("went back from 9000 µJ to 3000 µJ"),
            std::string::npos)
      << monotonic->read_error(package);
  EXPECT_NE(monotonic->read_error(package).find("level-zero.wrap_uj"), std::string::npos);

  SourceOptions options;
  options.settings["level-zero.wrap_uj"] = "10000";
  auto wrapping = open("wrap", options);
  readings = read_times(*wrapping, 3);
  ASSERT_TRUE(readings[package].ok) << wrapping->read_error(package);
  EXPECT_NEAR(readings[package].value, 2 * 4000e-6, 1e-12);
  EXPECT_NE(wrapping->channels()[package].provenance_detail.find("wraps at 10000 µJ"),
            std::string::npos);
}

TEST_F(LevelZeroTest, ALostDeviceFailsItsChannelsOnly) {
  auto source = open("energy_fails");
  const auto index = index_by_id(*source);
  std::vector<Reading> readings = read_times(*source, 2);
  ASSERT_TRUE(readings[index.at("level-zero:0:card")].ok);
  readings = read_times(*source, 1);
  const std::size_t card = index.at("level-zero:0:card");
  EXPECT_FALSE(readings[card].ok);
  EXPECT_NE(source->read_error(card).find(
                "zesPowerGetEnergyCounter(gpu 0) failed: ZE_RESULT_ERROR_DEVICE_LOST (0x70000001)"),
            std::string::npos)
      << source->read_error(card);
  EXPECT_TRUE(readings[index.at("level-zero:1:package")].ok);
}

TEST_F(LevelZeroTest, PermissionDeniedOnEveryCounterSaysWhatToDo) {
  auto source = open("energy_permission");
  EXPECT_FALSE(source->availability().available);
  EXPECT_NE(source->availability().reason.find("ZE_RESULT_ERROR_INSUFFICIENT_PERMISSIONS"),
            std::string::npos)
      << source->availability().reason;
  EXPECT_NE(source->availability().fix.find("render group"), std::string::npos);
  EXPECT_NE(source->availability().fix.find("root"), std::string::npos);
}

TEST_F(LevelZeroTest, AGpuWithoutEnergySupportIsNamedInTheReason) {
  auto source = open("no_domains");
  EXPECT_FALSE(source->availability().available);
  EXPECT_NE(source->availability().reason.find("Fake Max 1550"), std::string::npos);
  EXPECT_NE(source->availability().reason.find("no readable energy counter"), std::string::npos)
      << source->availability().reason;
}

TEST_F(LevelZeroTest, NoDriverAndNoGpuSayWhy) {
  auto uninitialised = open("uninitialized");
  EXPECT_FALSE(uninitialised->availability().available);
  EXPECT_NE(uninitialised->availability().reason.find("ZE_RESULT_ERROR_UNINITIALIZED"),
            std::string::npos);
  EXPECT_NE(uninitialised->availability().fix.find("ZES_ENABLE_SYSMAN=1"), std::string::npos);
  auto none = open("no_gpus");
  EXPECT_FALSE(none->availability().available);
  EXPECT_NE(none->availability().reason.find("no GPU"), std::string::npos);
}

TEST_F(LevelZeroTest, GpusContinueTheNumberingOfTheBackendsBefore) {
  SourceOptions options;
  options.first_gpu_index = 3;
  auto source = open("two_gpus", options);
  const auto index = index_by_id(*source);
  EXPECT_EQ(source->channels()[index.at("level-zero:0:card")].device, "gpu3");
  EXPECT_EQ(source->channels()[index.at("level-zero:1:package")].device, "gpu4");
}

TEST_F(LevelZeroTest, MissingLoaderNamesThePathAndTheOverride) {
  ::setenv("JOULEPROF_LEVEL_ZERO_LIBRARY", "/nonexistent/libze_loader.so.1", 1);
  auto source = make_level_zero_source(SourceOptions{});
  EXPECT_FALSE(source->availability().available);
  EXPECT_NE(source->availability().reason.find("cannot load /nonexistent/libze_loader.so.1"),
            std::string::npos);
  EXPECT_NE(source->availability().fix.find("JOULEPROF_LEVEL_ZERO_LIBRARY"), std::string::npos);
}

TEST_F(LevelZeroTest, ALibraryThatIsNotTheLoaderIsRejectedByMissingSymbol) {
  ::setenv("JOULEPROF_LEVEL_ZERO_LIBRARY", "libm.so.6", 1);
  auto source = make_level_zero_source(SourceOptions{});
  EXPECT_FALSE(source->availability().available);
  EXPECT_NE(source->availability().reason.find("has no symbol zeInit"), std::string::npos)
      << source->availability().reason;
}

// Sysman lists who holds each GPU, not how much of it: one entry per process, its GPUs in the
// source's numbering, its memory and engine types summed over them.
TEST_F(LevelZeroTest, ProcessesWithTheirGpus) {
  SourceOptions options;
  options.first_gpu_index = 1;
  auto source = open("two_gpus", options);
  Result<std::vector<LevelZeroProcess>> processes = level_zero_processes(*source);
  ASSERT_TRUE(processes.ok()) << processes.error().message();
  ASSERT_EQ(processes->size(), 2U);
  const LevelZeroProcess& first = (*processes)[0];
  EXPECT_EQ(first.pid, 4242U);
  EXPECT_EQ(first.devices, (std::vector<std::string>{"gpu1", "gpu2"}));
  EXPECT_EQ(first.memory_bytes, (1ULL << 30) + (256ULL << 20));
  EXPECT_EQ(first.engine_types, 0x24U);
  const LevelZeroProcess& second = (*processes)[1];
  EXPECT_EQ(second.pid, 4343U);
  EXPECT_EQ(second.devices, std::vector<std::string>{"gpu1"});
  EXPECT_EQ(second.shared_bytes, 64ULL << 20);

  auto other = make_simulated_source(SourceOptions{});
  EXPECT_FALSE(level_zero_processes(*other).ok());
  auto unavailable = open("no_gpus");
  const Result<std::vector<LevelZeroProcess>> none = level_zero_processes(*unavailable);
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.error().message().find("level-zero is not available"), std::string::npos)
      << none.error().message();
}

// With observed processes, each GPU with energy gets the three busy-time channels of the sole-user
// rule: the fake's gpu 1 is held by the observed 4242 alone, gpu 0 by 4242 and 4343 together.
TEST_F(LevelZeroTest, TheProcessesHoldingAGpuGiveItsBusyTimes) {
  auto observed = ObservedProcesses::process_tree(4242);
  observed->publish({4242});
  SourceOptions options;
  options.observed = observed;
  auto source = open("two_gpus", options);
  ASSERT_TRUE(source->availability().available) << source->availability().reason;
  const auto index = index_by_id(*source);
  for (const char* id : {"level-zero:0:observed", "level-zero:0:busy", "level-zero:0:idle",
                         "level-zero:1:observed", "level-zero:1:busy", "level-zero:1:idle"}) {
    ASSERT_TRUE(index.count(id)) << id;
    EXPECT_EQ(source->channels()[index.at(id)].kind, ChannelKind::kBusyTime) << id;
  }
  EXPECT_EQ(source->channels()[index.at("level-zero:1:observed")].domain, "gpu-sole-user");

  // The process lists are read at most every 100 ms: two polls that far apart.
  std::vector<Reading> readings(source->channels().size());
  std::this_thread::sleep_for(std::chrono::milliseconds(110));
  source->read(readings);
  std::this_thread::sleep_for(std::chrono::milliseconds(110));
  source->read(readings);
  const Reading& mine = readings[index.at("level-zero:1:observed")];
  ASSERT_TRUE(mine.ok) << source->read_error(index.at("level-zero:1:observed"));
  EXPECT_GT(mine.value, 0.0);
  EXPECT_EQ(mine.value, readings[index.at("level-zero:1:busy")].value);  // only 4242 holds it
  // gpu 0 is shared with a process that is not observed: no share, and the reason.
  const std::size_t shared = index.at("level-zero:0:observed");
  EXPECT_FALSE(readings[shared].ok);
  EXPECT_NE(source->read_error(shared).find("beside others (pids 4343)"), std::string::npos)
      << source->read_error(shared);

  EXPECT_EQ(index_by_id(*open("two_gpus")).count("level-zero:0:observed"), 0U);
}

TEST(LevelZeroErrors, EachResultHasItsOwnNameAndMeaning) {
  std::set<std::string_view> names;
  for (level_zero::Result result : {level_zero::kSuccess,
                                    level_zero::kNotReady,
                                    level_zero::kErrorDeviceLost,
                                    level_zero::kErrorOutOfHostMemory,
                                    level_zero::kErrorOutOfDeviceMemory,
                                    level_zero::kErrorDeviceRequiresReset,
                                    level_zero::kErrorDeviceInLowPowerState,
                                    level_zero::kErrorInsufficientPermissions,
                                    level_zero::kErrorNotAvailable,
                                    level_zero::kErrorDependencyUnavailable,
                                    level_zero::kErrorUninitialized,
                                    level_zero::kErrorUnsupportedVersion,
                                    level_zero::kErrorUnsupportedFeature,
                                    level_zero::kErrorInvalidArgument,
                                    level_zero::kErrorInvalidNullHandle,
                                    level_zero::kErrorInvalidNullPointer,
                                    level_zero::kErrorInvalidSize,
                                    level_zero::kErrorInvalidEnumeration,
                                    level_zero::kErrorUnsupportedEnumeration,
                                    level_zero::kErrorUnknown}) {
    const auto description = level_zero::describe_error(result);
    EXPECT_FALSE(description.meaning.empty()) << result;
    EXPECT_TRUE(names.insert(description.name).second) << "duplicate name for " << result;
    EXPECT_NE(description.name.find("ZE_RESULT_"), std::string_view::npos);
  }
  EXPECT_NE(level_zero::describe_error(0x12345).name.find("unrecognised"), std::string_view::npos);
}

}  // namespace
}  // namespace jouleprof
