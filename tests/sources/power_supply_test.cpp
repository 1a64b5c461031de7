#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "sources/backends.hpp"
#include "test_support.hpp"

namespace jouleprof {
namespace {

using testing::TempDir;

void write(const TempDir& root, const std::string& supply, const std::string& file,
           const std::string& value) {
  root.write("sys/class/power_supply/" + supply + "/" + file, value + "\n");
}

std::unique_ptr<Source> open_source(const TempDir& root) {
  SourceOptions options;
  options.sysfs_root = root.path().string();
  return make_power_supply_source(options);
}

std::map<std::string, std::size_t> index_by_id(const Source& source) {
  std::map<std::string, std::size_t> index;
  for (std::size_t i = 0; i < source.channels().size(); ++i) index[source.channels()[i].id] = i;
  return index;
}

// A laptop: mains adapter plus a battery that reports power_now and energy_now.
void write_laptop(const TempDir& root) {
  write(root, "AC", "type", "Mains");
  write(root, "AC", "online", "0");
  write(root, "BAT0", "type", "Battery");
  write(root, "BAT0", "present", "1");
  write(root, "BAT0", "status", "Discharging");
  write(root, "BAT0", "power_now", "12500000");
  write(root, "BAT0", "energy_now", "50000000");
}

TEST(PowerSupply, BatteryPowerIsDrawnPowerWithTheSignFromStatus) {
  TempDir root;
  write_laptop(root);
  auto source = open_source(root);
  ASSERT_TRUE(source->availability().available) << source->availability().reason;
  EXPECT_EQ(source->name(), "power-supply");
  const auto index = index_by_id(*source);
  ASSERT_EQ(index.size(), 2u);
  const std::size_t power = index.at("power-supply:BAT0/power");
  const Channel& channel = source->channels()[power];
  EXPECT_EQ(channel.kind, ChannelKind::kPower);
  EXPECT_EQ(channel.device, "battery BAT0");
  EXPECT_EQ(channel.source, "power-supply");
  EXPECT_TRUE(channel.is_top_level());
  EXPECT_NE(channel.provenance_detail.find("power_now (µW)"), std::string::npos);

  std::vector<Reading> readings(2);
  source->read(readings);
  EXPECT_DOUBLE_EQ(readings[power].value, 12.5);
  write(root, "BAT0", "status", "Charging");
  source->read(readings);
  EXPECT_DOUBLE_EQ(readings[power].value, -12.5);
}

TEST(PowerSupply, CurrentTimesVoltageWhenThereIsNoPowerNowWhateverTheVendorSign) {
  TempDir root;
  write(root, "BAT1", "type", "Battery");
  write(root, "BAT1", "status", "Discharging");
  write(root, "BAT1", "current_now", "-1000000");  // this vendor reports discharge as negative
  write(root, "BAT1", "voltage_now", "12000000");
  auto source = open_source(root);
  ASSERT_EQ(source->channels().size(), 1u) << source->availability().reason;
  EXPECT_NE(source->channels()[0].provenance_detail.find("(µA) ×"), std::string::npos);
  std::vector<Reading> readings(1);
  source->read(readings);
  EXPECT_DOUBLE_EQ(readings[0].value, 12.0);
}

TEST(PowerSupply, StoredEnergyCountsOnlyItsDecreasesAsEnergyDrawn) {
  TempDir root;
  write_laptop(root);
  auto source = open_source(root);
  const auto index = index_by_id(*source);
  const std::size_t drawn = index.at("power-supply:BAT0/energy-drawn");
  EXPECT_EQ(source->channels()[drawn].kind, ChannelKind::kEnergyCounter);
  EXPECT_EQ(source->channels()[drawn].parent_id, "power-supply:BAT0/power");
  std::vector<Reading> readings(2);
  source->read(readings);
  EXPECT_EQ(readings[drawn].value, 0.0);
  write(root, "BAT0", "energy_now", "49990000");  // 10 mWh = 36 J used
  source->read(readings);
  EXPECT_DOUBLE_EQ(readings[drawn].value, 36.0);
  write(root, "BAT0", "energy_now", "50000000");  // charged back: not consumption
  source->read(readings);
  EXPECT_DOUBLE_EQ(readings[drawn].value, 36.0);
  write(root, "BAT0", "energy_now", "49999000");  // 1 mWh = 3.6 J
  source->read(readings);
  EXPECT_DOUBLE_EQ(readings[drawn].value, 39.6);
}

TEST(PowerSupply, AbsentBatteriesAndMainsAreNotChannels) {
  TempDir root;
  write(root, "AC", "type", "Mains");
  write(root, "BAT0", "type", "Battery");
  write(root, "BAT0", "present", "0");
  write(root, "BAT0", "status", "Unknown");
  write(root, "BAT0", "power_now", "0");
  auto source = open_source(root);
  EXPECT_FALSE(source->availability().available);
  EXPECT_NE(source->availability().reason.find("no battery (supplies found: AC (Mains))"),
            std::string::npos)
      << source->availability().reason;
}

TEST(PowerSupply, GarbageIsReportedWithFileAndValue) {
  TempDir root;
  write(root, "BAT0", "type", "Battery");
  write(root, "BAT0", "status", "Discharging");
  write(root, "BAT0", "power_now", "n/a");
  auto source = open_source(root);
  EXPECT_FALSE(source->availability().available);
  EXPECT_NE(source->availability().reason.find("power_now' has value 'n/a'"), std::string::npos)
      << source->availability().reason;
}

TEST(PowerSupply, ValueTurningToGarbageMidRunFailsThatRead) {
  TempDir root;
  write_laptop(root);
  auto source = open_source(root);
  const auto index = index_by_id(*source);
  std::vector<Reading> readings(2);
  source->read(readings);
  write(root, "BAT0", "power_now", "");
  source->read(readings);
  const std::size_t power = index.at("power-supply:BAT0/power");
  EXPECT_FALSE(readings[power].ok);
  EXPECT_NE(source->read_error(power).find("empty"), std::string::npos);
  EXPECT_TRUE(readings[index.at("power-supply:BAT0/energy-drawn")].ok);
}

TEST(PowerSupply, MissingClassIsExplained) {
  TempDir root;
  auto source = open_source(root);
  EXPECT_FALSE(source->availability().available);
  EXPECT_NE(source->availability().reason.find("no power supplies"), std::string::npos);
}

}  // namespace
}  // namespace jouleprof
