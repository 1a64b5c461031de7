#include "sources/registry.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <set>
#include <string>

#include "jouleprof/sources.hpp"
#include "sources/manual_probe_clock.hpp"
#include "test_support.hpp"

namespace jouleprof {
namespace {

using ::jouleprof::testing::ManualProbeClock;
using ::jouleprof::testing::TempDir;

bool listed(const std::vector<UnavailableSource>& list, std::string_view name) {
  for (const auto& u : list) {
    if (u.name == name) return true;
  }
  return false;
}

TEST(Registry, EveryEntryHasAFactoryAndUniqueName) {
  std::set<std::string_view> names;
  for (const SourceEntry& e : source_registry()) {
    EXPECT_NE(e.make, nullptr) << e.name;
    EXPECT_TRUE(names.insert(e.name).second) << "duplicate " << e.name;
  }
  EXPECT_TRUE(names.count("simulated"));
  EXPECT_TRUE(names.count("cpu-estimate"));
}

TEST(Registry, UnknownNameListsValidOnes) {
  SourceOptions options;
  options.selected = {"simulated", "rapl-turbo"};
  const Result<SourceDiscovery> found = discover_sources(options);
  ASSERT_FALSE(found.ok());
  EXPECT_NE(found.error().message().find("rapl-turbo"), std::string::npos);
  // The library names the option field; only the command line speaks of --source.
  EXPECT_NE(found.error().message().find("SourceOptions::selected"), std::string::npos);
  EXPECT_EQ(found.error().message().find("--"), std::string::npos) << found.error().message();
  EXPECT_NE(found.error().message().find("cpu-estimate"), std::string::npos);
  EXPECT_NE(found.error().message().find("simulated"), std::string::npos);
}

TEST(Registry, SelectedSourceWithoutSettingsIsUnavailableWithReasonAndFix) {
  SourceOptions options;
  options.selected = {"simulated"};
  Result<SourceDiscovery> found = discover_sources(options);
  ASSERT_TRUE(found.ok());
  EXPECT_TRUE(found->available.empty());
  ASSERT_EQ(found->unavailable.size(), 1U);
  EXPECT_EQ(found->unavailable[0].name, "simulated");
  EXPECT_FALSE(found->unavailable[0].availability.reason.empty());
  EXPECT_NE(found->unavailable[0].availability.fix.find("setting simulate.watts"),
            std::string::npos);
}

TEST(Registry, SelectionTakesEachNameOnce) {
  SourceOptions options;
  options.selected = split_source_list("simulated, simulated,");
  options.settings["simulate.watts"] = "10";
  Result<SourceDiscovery> found = discover_sources(options);
  ASSERT_TRUE(found.ok());
  ASSERT_EQ(found->available.size(), 1U);
  EXPECT_EQ(found->available[0]->name(), "simulated");
}

TEST(Registry, DefaultFallsBackToTheEstimateWhenNothingIsMeasured) {
  ::jouleprof::testing::hide_gpu_libraries();
  // An empty fake root: no powercap, no hwmon, no GPU library; only /proc/stat for the estimate.
  TempDir root;
  root.write("proc/stat", "cpu  100 0 50 800 10 0 0 0 0 0\ncpu0 100 0 50 800 10 0 0 0 0 0\n");
  SourceOptions options;
  options.sysfs_root = root.path().string();
  Result<SourceDiscovery> found = discover_sources(options);
  ASSERT_TRUE(found.ok());
  ASSERT_EQ(found->available.size(), 1U);
  EXPECT_EQ(found->available[0]->name(), "cpu-estimate");
  EXPECT_FALSE(listed(found->unavailable, "simulated"));  // never part of the default set
  ASSERT_FALSE(found->notes.empty());
  EXPECT_NE(found->notes.back().find("estimate"), std::string::npos);
}

const UnavailableSource* find_unavailable(const std::vector<UnavailableSource>& list,
                                          std::string_view name) {
  for (const auto& u : list) {
    if (u.name == name) return &u;
  }
  return nullptr;
}

// One powercap package zone and /proc/stat, so that the estimate can stand in.
void write_powercap_root(const TempDir& root, const std::string& energy_uj) {
  root.write("sys/class/powercap/intel-rapl:0/name", "package-0\n");
  root.write("sys/class/powercap/intel-rapl:0/energy_uj", energy_uj + "\n");
  root.write("sys/class/powercap/intel-rapl:0/max_energy_range_uj", "262143328850\n");
  root.write("proc/stat", "cpu  100 0 50 800 10 0 0 0 0 0\ncpu0 100 0 50 800 10 0 0 0 0 0\n");
}

TEST(Registry, DefaultLeavesOutRaplCountersThatDoNotMove) {
  ::jouleprof::testing::hide_gpu_libraries();
  TempDir root;
  write_powercap_root(root, "123456789");  // a fake tree: the counter never changes
  SourceOptions options;
  options.sysfs_root = root.path().string();
  Result<SourceDiscovery> found = discover_sources(options);
  ASSERT_TRUE(found.ok());
  ASSERT_EQ(found->available.size(), 1U);
  EXPECT_EQ(found->available[0]->name(), "cpu-estimate");
  const UnavailableSource* powercap = find_unavailable(found->unavailable, "rapl-powercap");
  ASSERT_NE(powercap, nullptr);
  EXPECT_NE(powercap->availability.reason.find("did not move in 50 ms"), std::string::npos)
      << powercap->availability.reason;
  EXPECT_NE(powercap->availability.reason.find("rapl:package-0 unchanged"), std::string::npos)
      << powercap->availability.reason;
  EXPECT_NE(powercap->availability.fix.find("the rapl-powercap source by name"), std::string::npos);
}

// The kernel's RAPL driver advances the counter about every millisecond, so between two of the
// probe's reads it has always moved: the fake tree's counter moves at every probe sleep.
TEST(Registry, DefaultTakesRaplCountersThatMove) {
  ::jouleprof::testing::hide_gpu_libraries();
  TempDir root;
  std::uint64_t energy_uj = 1000000;
  write_powercap_root(root, std::to_string(energy_uj));
  ManualProbeClock clock([&] {
    energy_uj += 5000;
    root.write("sys/class/powercap/intel-rapl:0/energy_uj", std::to_string(energy_uj) + "\n");
  });
  SourceOptions options;
  options.sysfs_root = root.path().string();
  Result<SourceDiscovery> found = discover_sources(options, clock);
  ASSERT_TRUE(found.ok());
  ASSERT_EQ(found->available.size(), 1U);
  EXPECT_EQ(found->available[0]->name(), "rapl-powercap");
  EXPECT_EQ(clock.sleeps_ns().size(), 1U) << "taken at the first movement";
}

TEST(Registry, ANamedSourceIsNotProbed) {
  ::jouleprof::testing::hide_gpu_libraries();
  TempDir root;
  write_powercap_root(root, "123456789");
  SourceOptions options;
  options.sysfs_root = root.path().string();
  options.selected = {"rapl-powercap"};
  Result<SourceDiscovery> found = discover_sources(options);
  ASSERT_TRUE(found.ok());
  ASSERT_EQ(found->available.size(), 1U);
  EXPECT_EQ(found->available[0]->name(), "rapl-powercap");
}

TEST(Registry, DefaultWithoutProcStatLeavesNothingAvailableAndSaysWhy) {
  ::jouleprof::testing::hide_gpu_libraries();
  TempDir root;
  SourceOptions options;
  options.sysfs_root = root.path().string();
  Result<SourceDiscovery> found = discover_sources(options);
  ASSERT_TRUE(found.ok());
  EXPECT_TRUE(found->available.empty());
  ASSERT_TRUE(listed(found->unavailable, "cpu-estimate"));
  for (const auto& u : found->unavailable) EXPECT_FALSE(u.availability.reason.empty()) << u.name;
}

// The fake GPU libraries (tests/sources/fake_*), as a machine with AMD and Intel GPUs has them.
class RegistryWithGpus : public ::testing::Test {
 protected:
  void SetUp() override {
    ::jouleprof::testing::hide_gpu_libraries();
    ::setenv("JOULEPROF_ROCM_SMI_LIBRARY", FAKE_ROCM_SMI_PATH, 1);
    ::setenv("JOULEPROF_LEVEL_ZERO_LIBRARY", FAKE_LEVEL_ZERO_PATH, 1);
  }
  void TearDown() override {
    ::unsetenv("JOULEPROF_ROCM_SMI_LIBRARY");
    ::unsetenv("JOULEPROF_LEVEL_ZERO_LIBRARY");
  }
};

std::set<std::string> devices_of(const Source& source) {
  std::set<std::string> devices;
  for (const Channel& c : source.channels()) devices.insert(c.device);
  return devices;
}

TEST_F(RegistryWithGpus, GpusOfSeveralVendorsShareOneNumbering) {
  TempDir root;
  SourceOptions options;
  options.sysfs_root = root.path().string();
  options.selected = {"rocm-smi", "level-zero"};
  Result<SourceDiscovery> found = discover_sources(options);
  ASSERT_TRUE(found.ok());
  ASSERT_EQ(found->available.size(), 2U);
  EXPECT_EQ(devices_of(*found->available[0]), (std::set<std::string>{"gpu0", "gpu1"}));
  EXPECT_EQ(devices_of(*found->available[1]), (std::set<std::string>{"gpu2", "gpu3"}));
}

TEST_F(RegistryWithGpus, TheDefaultSetTakesTheGpuLibrariesAndLeavesTheirChipsOutOfHwmon) {
  TempDir root;
  root.write("sys/class/hwmon/hwmon2/name", "amdgpu\n");
  root.write("sys/class/hwmon/hwmon2/power1_average", "35000000\n");
  root.write("sys/class/hwmon/hwmon3/name", "i915\n");
  root.write("sys/class/hwmon/hwmon3/energy1_input", "1000\n");
  root.write("sys/class/hwmon/hwmon4/name", "ina3221\n");
  root.write("sys/class/hwmon/hwmon4/power1_input", "1000000\n");
  SourceOptions options;
  options.sysfs_root = root.path().string();
  Result<SourceDiscovery> found = discover_sources(options);
  ASSERT_TRUE(found.ok());
  std::vector<std::string> names;
  for (const auto& source : found->available) names.emplace_back(source->name());
  EXPECT_EQ(names, (std::vector<std::string>{"rocm-smi", "level-zero", "hwmon"}));
  const Source& hwmon = *found->available[2];
  ASSERT_EQ(hwmon.channels().size(), 1U);
  EXPECT_EQ(hwmon.channels()[0].id, "hwmon:ina3221/power1");
  EXPECT_NE(hwmon.availability().reason.find("amdgpu, i915 left out"), std::string::npos)
      << hwmon.availability().reason;
}

TEST(Registry, AnUnknownSettingOfASourceNamesTheKeyAndListsTheSourcesSettings) {
  SourceOptions options;
  options.selected = {"simulated"};
  options.settings["simulate.watts"] = "10";
  options.settings["simulate.wats"] = "10";
  const Result<SourceDiscovery> found = discover_sources(options);
  ASSERT_FALSE(found.ok());
  EXPECT_EQ(found.error().code(), ErrorCode::kInvalidInput);
  const std::string& message = found.error().message();
  EXPECT_NE(message.find("simulate.wats"), std::string::npos) << message;
  EXPECT_NE(message.find("simulated source"), std::string::npos) << message;
  for (std::string_view key : {"simulate.watts", "simulate.profile", "simulate.channels"}) {
    EXPECT_NE(message.find(key), std::string::npos) << key << " in " << message;
  }
  EXPECT_EQ(message.find("estimate.tdp_w"), std::string::npos) << message;
}

TEST(Registry, ASettingOfNoSourceListsEachSourcesPrefix) {
  SourceOptions options;
  options.selected = {"simulated"};
  options.settings["bogus"] = "1";
  const Result<SourceDiscovery> found = discover_sources(options);
  ASSERT_FALSE(found.ok());
  const std::string& message = found.error().message();
  EXPECT_NE(message.find("bogus"), std::string::npos) << message;
  EXPECT_NE(message.find("simulate.* (simulated)"), std::string::npos) << message;
  EXPECT_NE(message.find("processes.* (processes)"), std::string::npos) << message;
}

// Every key a backend declares is accepted, whether or not its source is selected: --tdp sets
// estimate.tdp_w for any run, discovery sets hwmon.skip-chips.
TEST(Registry, EveryDeclaredSettingIsAccepted) {
  SourceOptions options;
  options.selected = {"simulated"};
  options.settings["simulate.watts"] = "10";
  options.settings["processes.threads"] = "1";
  for (const SourceEntry& e : source_registry()) {
    if (e.settings == nullptr) continue;
    for (std::string_view key : e.settings()) options.settings.emplace(std::string(key), "1");
  }
  options.settings.erase("simulate.profile");  // one of watts and profile
  EXPECT_GT(options.settings.size(), 20U);
  const Result<SourceDiscovery> found = discover_sources(options);
  ASSERT_TRUE(found.ok()) << found.error().message();
}

TEST(Registry, SplitSourceList) {
  EXPECT_EQ(split_source_list(" a, b ,,c"), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_TRUE(split_source_list("").empty());
}

}  // namespace
}  // namespace jouleprof
