#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "sources/backends.hpp"
#include "test_support.hpp"

namespace jouleprof {
namespace {

using testing::TempDir;

constexpr const char* kHwmon = "sys/class/hwmon/";

std::unique_ptr<Source> open_source(const TempDir& root,
                                    std::map<std::string, std::string> settings = {}) {
  SourceOptions options;
  options.sysfs_root = root.path().string();
  options.settings = std::move(settings);
  return make_hwmon_source(options);
}

std::map<std::string, std::size_t> index_by_id(const Source& source) {
  std::map<std::string, std::size_t> index;
  for (std::size_t i = 0; i < source.channels().size(); ++i) index[source.channels()[i].id] = i;
  return index;
}

void write(const TempDir& root, const std::string& chip, const std::string& file,
           const std::string& value) {
  root.write(kHwmon + chip + "/" + file, value + "\n");
}

// Jetson Orin (L4T 35): the INA3221 reports bus voltage and current per rail, no power files.
void write_jetson_orin(const TempDir& root, const std::string& chip = "hwmon1") {
  write(root, chip, "name", "ina3221");
  const char* labels[] = {"VDD_IN", "VDD_CPU_GPU_CV", "VDD_SOC"};
  const char* milliamps[] = {"2000", "800", "600"};
  for (int rail = 1; rail <= 3; ++rail) {
    const std::string n = std::to_string(rail);
    write(root, chip, "in" + n + "_label", labels[rail - 1]);
    write(root, chip, "in" + n + "_input", "5000");
    write(root, chip, "curr" + n + "_input", milliamps[rail - 1]);
    write(root, chip, "in" + std::to_string(rail + 3) + "_input", "12");  // shunt voltage
  }
}

TEST(Hwmon, JetsonInaRailsAreVoltageTimesCurrentNestedUnderTheModuleInput) {
  TempDir root;
  write(root, "hwmon0", "name", "coretemp");
  write(root, "hwmon0", "temp1_input", "45000");
  write_jetson_orin(root);
  auto source = open_source(root);
  ASSERT_TRUE(source->availability().available) << source->availability().reason;
  EXPECT_EQ(source->name(), "hwmon");
  const auto index = index_by_id(*source);
  ASSERT_EQ(index.size(), 3u);
  const Channel& input = source->channels()[index.at("hwmon:ina3221/VDD_IN")];
  EXPECT_TRUE(input.is_top_level());
  EXPECT_EQ(input.kind, ChannelKind::kPower);
  EXPECT_EQ(input.device, "ina3221");
  EXPECT_EQ(input.domain, "rail");
  EXPECT_EQ(input.source, "hwmon");
  EXPECT_NE(input.provenance_detail.find("in1_input (mV) ×"), std::string::npos);
  EXPECT_EQ(source->channels()[index.at("hwmon:ina3221/VDD_SOC")].parent_id,
            "hwmon:ina3221/VDD_IN");

  std::vector<Reading> readings(3);
  source->read(readings);
  EXPECT_DOUBLE_EQ(readings[index.at("hwmon:ina3221/VDD_IN")].value, 10.0);
  EXPECT_DOUBLE_EQ(readings[index.at("hwmon:ina3221/VDD_CPU_GPU_CV")].value, 4.0);
  write(root, "hwmon1", "curr3_input", "-4");  // idle rails can read just below zero
  source->read(readings);
  EXPECT_TRUE(readings[index.at("hwmon:ina3221/VDD_SOC")].ok);
  EXPECT_DOUBLE_EQ(readings[index.at("hwmon:ina3221/VDD_SOC")].value, -0.02);
}

TEST(Hwmon, TotalRailNestingCanBeTurnedOff) {
  TempDir root;
  write_jetson_orin(root);
  auto source = open_source(root, {{"hwmon.total-rail", ""}});
  for (const Channel& channel : source->channels())
    EXPECT_TRUE(channel.is_top_level()) << channel.id;
}

TEST(Hwmon, PowerInputsInMicrowattsWithLabels) {
  TempDir root;
  write(root, "hwmon3", "name", "ina3221");
  write(root, "hwmon3", "power1_input", "7250000");
  write(root, "hwmon3", "power1_label", "VDD_GPU");
  write(root, "hwmon3", "power2_input", "1000000");  // no label: named by its file
  write(root, "hwmon3", "update_interval", "20");
  auto source = open_source(root);
  const auto index = index_by_id(*source);
  ASSERT_TRUE(index.count("hwmon:ina3221/VDD_GPU"));
  ASSERT_TRUE(index.count("hwmon:ina3221/power2"));
  EXPECT_EQ(source->channels()[index.at("hwmon:ina3221/VDD_GPU")].nominal_period_ns, 20 * kNsPerMs);
  std::vector<Reading> readings(2);
  source->read(readings);
  EXPECT_DOUBLE_EQ(readings[index.at("hwmon:ina3221/VDD_GPU")].value, 7.25);
}

TEST(Hwmon, AveragePowerIsUsedOnlyWithoutAnInstantaneousInput) {
  TempDir root;
  write(root, "hwmon2", "name", "amdgpu");
  write(root, "hwmon2", "power1_average", "35000000");
  write(root, "hwmon4", "name", "other");
  write(root, "hwmon4", "power1_average", "1");
  write(root, "hwmon4", "power1_input", "2000000");
  auto source = open_source(root);
  const auto index = index_by_id(*source);
  ASSERT_EQ(index.size(), 2u);
  std::vector<Reading> readings(2);
  source->read(readings);
  EXPECT_DOUBLE_EQ(readings[index.at("hwmon:amdgpu/power1")].value, 35.0);
  EXPECT_DOUBLE_EQ(readings[index.at("hwmon:other/power1")].value, 2.0);
}

// A GPU backend that reads amdgpu through its vendor's library has it left out of hwmon.
TEST(Hwmon, ChipsAnotherSourceReadsAreLeftOutAndSaidSo) {
  TempDir root;
  write(root, "hwmon2", "name", "amdgpu");
  write(root, "hwmon2", "power1_average", "35000000");
  write(root, "hwmon4", "name", "other");
  write(root, "hwmon4", "power1_input", "2000000");
  auto source = open_source(root, {{"hwmon.skip-chips", "i915,amdgpu"}});
  ASSERT_TRUE(source->availability().available);
  const auto index = index_by_id(*source);
  EXPECT_EQ(index.size(), 1u);
  EXPECT_TRUE(index.count("hwmon:other/power1"));
  EXPECT_NE(source->availability().reason.find("amdgpu left out"), std::string::npos)
      << source->availability().reason;

  TempDir only_gpu;
  write(only_gpu, "hwmon2", "name", "amdgpu");
  write(only_gpu, "hwmon2", "power1_average", "35000000");
  auto none = open_source(only_gpu, {{"hwmon.skip-chips", "amdgpu"}});
  EXPECT_FALSE(none->availability().available);
  EXPECT_NE(none->availability().reason.find("amdgpu left out"), std::string::npos)
      << none->availability().reason;
  EXPECT_EQ(none->availability().fix, "");
}

TEST(Hwmon, EnergyInputsAccumulateFromTheFirstReadAndPowerOfTheSameRailNests) {
  TempDir root;
  write(root, "hwmon5", "name", "amd_energy");
  write(root, "hwmon5", "energy1_input", "1000000");
  write(root, "hwmon5", "energy1_label", "Esocket0");
  write(root, "hwmon5", "power1_input", "50000000");
  write(root, "hwmon5", "power1_label", "Esocket0");
  auto source = open_source(root);
  const auto index = index_by_id(*source);
  ASSERT_EQ(index.size(), 2u) << source->availability().reason;
  const std::size_t energy = index.at("hwmon:amd_energy/Esocket0");
  const std::size_t power = index.at("hwmon:amd_energy/Esocket0/power1");
  EXPECT_EQ(source->channels()[energy].kind, ChannelKind::kEnergyCounter);
  EXPECT_EQ(source->channels()[power].parent_id, "hwmon:amd_energy/Esocket0");
  std::vector<Reading> readings(2);
  source->read(readings);
  EXPECT_EQ(readings[energy].value, 0.0);
  write(root, "hwmon5", "energy1_input", "3500000");
  source->read(readings);
  EXPECT_DOUBLE_EQ(readings[energy].value, 2.5);
  // A sensor reset is passed on as a decrease: the sampler judges it and records a gap.
  write(root, "hwmon5", "energy1_input", "10");
  source->read(readings);
  EXPECT_TRUE(readings[energy].ok);
  EXPECT_DOUBLE_EQ(readings[energy].value, -0.99999);
}

TEST(Hwmon, ChipsWithTheSameNameAreToldApartByDirectory) {
  TempDir root;
  write(root, "hwmon2", "name", "ina3221");
  write(root, "hwmon2", "power1_input", "1");
  write(root, "hwmon2", "power1_label", "GPU");
  write(root, "hwmon10", "name", "ina3221");
  write(root, "hwmon10", "power1_input", "1");
  write(root, "hwmon10", "power1_label", "CPU");
  auto source = open_source(root);
  const auto index = index_by_id(*source);
  EXPECT_TRUE(index.count("hwmon:ina3221@hwmon2/GPU"));
  EXPECT_TRUE(index.count("hwmon:ina3221@hwmon10/CPU"));
}

TEST(Hwmon, GarbageAndNegativeValuesAreSkippedWithTheirFile) {
  TempDir root;
  write(root, "hwmon0", "name", "meter");
  write(root, "hwmon0", "power1_input", "lots");
  write(root, "hwmon0", "power2_input", "-5");
  write(root, "hwmon0", "energy1_input", "");
  auto source = open_source(root);
  EXPECT_FALSE(source->availability().available);
  const std::string& reason = source->availability().reason;
  EXPECT_NE(reason.find("power1_input' has value 'lots'"), std::string::npos) << reason;
  EXPECT_NE(reason.find("negative"), std::string::npos) << reason;
  EXPECT_NE(reason.find("empty"), std::string::npos) << reason;
}

TEST(Hwmon, SensorDisappearingMidRunFailsItsChannel) {
  TempDir root;
  write_jetson_orin(root);
  auto source = open_source(root);
  std::vector<Reading> readings(source->channels().size());
  source->read(readings);
  std::filesystem::remove_all(root.path() / kHwmon / "hwmon1");
  source->read(readings);
  EXPECT_FALSE(readings[0].ok);
  EXPECT_NE(source->read_error(0).find("removed"), std::string::npos) << source->read_error(0);
}

TEST(Hwmon, NothingToReadIsExplained) {
  TempDir missing;
  EXPECT_NE(open_source(missing)->availability().reason.find("no hwmon sensors"),
            std::string::npos);
  TempDir temperatures_only;
  write(temperatures_only, "hwmon0", "name", "coretemp");
  write(temperatures_only, "hwmon0", "temp1_input", "40000");
  write(temperatures_only, "hwmon1", "name", "nvme");
  auto source = open_source(temperatures_only);
  EXPECT_FALSE(source->availability().available);
  EXPECT_NE(source->availability().reason.find("chips: coretemp, nvme"), std::string::npos)
      << source->availability().reason;
}

}  // namespace
}  // namespace jouleprof
