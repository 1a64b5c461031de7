#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "sources/backends.hpp"
#include "sources/file_capabilities.hpp"
#include "test_support.hpp"

namespace jouleprof {
namespace {

using testing::TempDir;

constexpr const char* kPowercap = "sys/class/powercap/";
constexpr std::uint64_t kMaxRangeUj = 262143328850;

void write_zone(const TempDir& root, const std::string& dir, const std::string& name,
                const std::string& energy_uj, const std::string& max_range = "262143328850") {
  root.write(kPowercap + dir + "/name", name + "\n");
  root.write(kPowercap + dir + "/energy_uj", energy_uj + "\n");
  if (!max_range.empty()) root.write(kPowercap + dir + "/max_energy_range_uj", max_range + "\n");
}

void set_energy(const TempDir& root, const std::string& dir, const std::string& energy_uj) {
  root.write(kPowercap + dir + "/energy_uj", energy_uj + "\n");
}

std::unique_ptr<Source> open_source(const TempDir& root) {
  SourceOptions options;
  options.sysfs_root = root.path().string();
  return make_rapl_powercap_source(options);
}

std::vector<Reading> read_all(Source& source) {
  std::vector<Reading> readings(source.channels().size());
  source.read(readings);
  return readings;
}

std::map<std::string, std::size_t> index_by_id(const Source& source) {
  std::map<std::string, std::size_t> index;
  for (std::size_t i = 0; i < source.channels().size(); ++i) index[source.channels()[i].id] = i;
  return index;
}

// A two-socket Intel server with core, uncore and dram sub-zones and a platform psys zone, laid
// out as the kernel does: every zone is a flat entry of the powercap class.
void write_two_socket_intel(const TempDir& root) {
  root.write(std::string(kPowercap) + "intel-rapl/enabled", "1\n");  // control type, not a zone
  write_zone(root, "intel-rapl:0", "package-0", "1000000");
  write_zone(root, "intel-rapl:0:0", "core", "400000");
  write_zone(root, "intel-rapl:0:1", "uncore", "50000");
  write_zone(root, "intel-rapl:0:2", "dram", "200000", "65712999613");
  write_zone(root, "intel-rapl:1", "package-1", "3000000");
  write_zone(root, "intel-rapl:1:0", "core", "700000");
  write_zone(root, "intel-rapl:1:1", "dram", "300000", "65712999613");
  write_zone(root, "intel-rapl:2", "psys", "9000000");
  write_zone(root, "intel-rapl-mmio:0", "package-0", "1");  // MMIO duplicate of package-0
}

TEST(RaplPowercap, TwoSocketIntelZonesAreNamedAndNested) {
  TempDir root;
  write_two_socket_intel(root);
  auto source = open_source(root);
  ASSERT_TRUE(source->availability().available) << source->availability().reason;
  EXPECT_EQ(source->name(), "rapl-powercap");

  const auto index = index_by_id(*source);
  const std::map<std::string, std::string> expected_parent = {
      {"rapl:package-0", "rapl:psys"},
      {"rapl:package-0/core", "rapl:package-0"},
      {"rapl:package-0/uncore", "rapl:package-0"},
      {"rapl:package-0/dram", "rapl:package-0"},
      {"rapl:package-1", "rapl:psys"},
      {"rapl:package-1/core", "rapl:package-1"},
      {"rapl:package-1/dram", "rapl:package-1"},
      {"rapl:psys", ""}};
  ASSERT_EQ(index.size(), expected_parent.size());
  for (const auto& [id, parent] : expected_parent) {
    ASSERT_TRUE(index.count(id)) << id;
    const Channel& channel = source->channels()[index.at(id)];
    EXPECT_EQ(channel.parent_id, parent) << id;
    EXPECT_EQ(channel.source, "rapl-powercap");
    EXPECT_EQ(channel.kind, ChannelKind::kEnergyCounter);
    EXPECT_EQ(channel.provenance, Provenance::kMeasured);
    EXPECT_NE(channel.provenance_detail.find("energy_uj"), std::string::npos);
    EXPECT_EQ(channel.nominal_period_ns, kNsPerMs);
  }
  EXPECT_EQ(source->channels()[index.at("rapl:package-1/dram")].domain, "dram");
  EXPECT_EQ(source->channels()[index.at("rapl:package-1/dram")].device, "cpu1");
  EXPECT_EQ(source->channels()[index.at("rapl:package-0")].domain, "package");
  EXPECT_EQ(source->channels()[index.at("rapl:psys")].device, "platform");
  EXPECT_EQ(source->default_period_ns(), 10 * kNsPerMs);
}

TEST(RaplPowercap, FirstReadIsTheBaselineAndLaterReadsAccumulateJoules) {
  TempDir root;
  write_two_socket_intel(root);
  auto source = open_source(root);
  const auto index = index_by_id(*source);

  auto first = read_all(*source);
  for (const Reading& reading : first) {
    EXPECT_TRUE(reading.ok);
    EXPECT_EQ(reading.value, 0.0);
  }
  set_energy(root, "intel-rapl:0", "3500000");    // +2.5 J
  set_energy(root, "intel-rapl:1:1", "1300000");  // +1.0 J
  auto second = read_all(*source);
  EXPECT_DOUBLE_EQ(second[index.at("rapl:package-0")].value, 2.5);
  EXPECT_DOUBLE_EQ(second[index.at("rapl:package-1/dram")].value, 1.0);
  EXPECT_DOUBLE_EQ(second[index.at("rapl:psys")].value, 0.0);
  EXPECT_GE(second[0].t_ns, first[0].t_ns);
}

TEST(RaplPowercap, AmdHasPackageAndCoreOnly) {
  TempDir root;
  write_zone(root, "intel-rapl:0", "package-0", "123");
  write_zone(root, "intel-rapl:0:0", "core", "45");
  auto source = open_source(root);
  ASSERT_TRUE(source->availability().available);
  ASSERT_EQ(source->channels().size(), 2u);
  const auto index = index_by_id(*source);
  EXPECT_TRUE(source->channels()[index.at("rapl:package-0")].is_top_level());
  EXPECT_EQ(source->channels()[index.at("rapl:package-0/core")].parent_id, "rapl:package-0");
}

TEST(RaplPowercap, WrapAroundDuringARunIsUndoneInto64BitTotals) {
  TempDir root;
  write_zone(root, "intel-rapl:0", "package-0", std::to_string(kMaxRangeUj - 1'000'000));
  auto source = open_source(root);
  read_all(*source);  // baseline 1 J below the wrap
  set_energy(root, "intel-rapl:0", "2000000");
  auto after_wrap = read_all(*source);
  ASSERT_TRUE(after_wrap[0].ok) << source->read_error(0);
  // 1 J up to max_energy_range_uj, then 1 µJ to reach 0, then 2 J.
  EXPECT_NEAR(after_wrap[0].value, 3.000001, 1e-9);
}

// With the real range, a reset to 0 or a step back of 1 µJ would read as a whole range (262 kJ)
// consumed since the last read: not a wrap, so the source passes the decrease on for the sampler
// to judge (sources/plausibility.hpp), which records a gap, not 262 kJ.
TEST(RaplPowercap, ResetOrStepBackIsNoWrap) {
  for (const char* next : {"0", "4999999"}) {
    TempDir root;
    write_zone(root, "intel-rapl:0", "package-0", "5000000");
    auto source = open_source(root);
    read_all(*source);
    set_energy(root, "intel-rapl:0", next);
    const auto readings = read_all(*source);
    ASSERT_TRUE(readings[0].ok) << source->read_error(0);
    EXPECT_LT(readings[0].value, 0.0) << next;
    EXPECT_GT(readings[0].value, -5.000001) << next;
  }
}

TEST(RaplPowercap, DecreaseWithoutWrapRangeIsPassedOnWithANote) {
  for (const char* range : {"", "0"}) {
    SCOPED_TRACE(range);
    TempDir root;
    write_zone(root, "intel-rapl:0", "package-0", "5000000", range);
    auto source = open_source(root);
    ASSERT_TRUE(source->availability().available);
    EXPECT_NE(source->availability().reason.find("a wrap cannot be undone and will read as a "
                                                 "counter reset"),
              std::string::npos)
        << source->availability().reason;
    EXPECT_EQ(source->availability().reason.find("skipped"), std::string::npos)
        << "the zone is used, not skipped";
    read_all(*source);
    set_energy(root, "intel-rapl:0", "1000");
    auto readings = read_all(*source);
    ASSERT_TRUE(readings[0].ok);
    EXPECT_DOUBLE_EQ(readings[0].value, -4.999);
  }
}

TEST(RaplPowercap, MissingPowercapSaysWhyAndWhatToDo) {
  TempDir root;
  auto source = open_source(root);
  EXPECT_FALSE(source->availability().available);
  EXPECT_TRUE(source->channels().empty());
  EXPECT_NE(source->availability().reason.find("powercap"), std::string::npos);
  EXPECT_NE(source->availability().fix.find("modprobe"), std::string::npos);
  std::vector<Reading> none;
  source->read(none);  // a source with no channels reads nothing and does not crash
}

TEST(RaplPowercap, EmptyPowercapClassIsUnavailable) {
  TempDir root;
  std::filesystem::create_directories(root.path() / kPowercap);
  auto source = open_source(root);
  EXPECT_FALSE(source->availability().available);
  EXPECT_NE(source->availability().reason.find("no intel-rapl zones"), std::string::npos);
}

TEST(RaplPowercap, PermissionDeniedNamesTheFileAndOffersPerfAndGroupRule) {
  TempDir root;
  write_zone(root, "intel-rapl:0", "package-0", "1000");
  write_zone(root, "intel-rapl:0:0", "core", "1000");
  for (const char* zone : {"intel-rapl:0", "intel-rapl:0:0"}) {
    std::filesystem::permissions(root.path() / kPowercap / zone / "energy_uj",
                                 std::filesystem::perms::none);
  }
  testing::WithoutFileCapabilities unprivileged;
  if (!unprivileged.effective()) GTEST_SKIP() << "cannot drop CAP_DAC_OVERRIDE in this sandbox";
  auto source = open_source(root);
  const Availability availability = source->availability();
  EXPECT_FALSE(availability.available);
  EXPECT_NE(availability.reason.find("Permission denied"), std::string::npos)
      << availability.reason;
  EXPECT_NE(availability.reason.find("intel-rapl:0/energy_uj"), std::string::npos);
  EXPECT_NE(availability.fix.find("rapl-perf"), std::string::npos);
  EXPECT_NE(availability.fix.find("perf_event_paranoid"), std::string::npos);
  EXPECT_NE(availability.fix.find("udev"), std::string::npos);
  EXPECT_NE(availability.fix.find("chmod"), std::string::npos);
}

TEST(RaplPowercap, OneUnreadableZoneIsReportedWhileTheOthersWork) {
  TempDir root;
  write_zone(root, "intel-rapl:0", "package-0", "1000");
  write_zone(root, "intel-rapl:0:2", "dram", "1000");
  std::filesystem::permissions(root.path() / kPowercap / "intel-rapl:0:2/energy_uj",
                               std::filesystem::perms::none);
  testing::WithoutFileCapabilities unprivileged;
  if (!unprivileged.effective()) GTEST_SKIP() << "cannot drop CAP_DAC_OVERRIDE in this sandbox";
  auto source = open_source(root);
  EXPECT_TRUE(source->availability().available);
  ASSERT_EQ(source->channels().size(), 1u);
  EXPECT_NE(source->availability().reason.find("intel-rapl:0:2"), std::string::npos);
  EXPECT_NE(source->availability().fix.find("udev"), std::string::npos);
}

struct BadValueCase {
  std::string label;
  std::string content;
  std::string expected_message;
};

void PrintTo(const BadValueCase& value_case, std::ostream* out) { *out << value_case.label; }

class RaplPowercapBadValue : public ::testing::TestWithParam<BadValueCase> {};

TEST_P(RaplPowercapBadValue, ZoneIsSkippedWithAMessageNamingFileFieldAndValue) {
  TempDir root;
  write_zone(root, "intel-rapl:0", "package-0", GetParam().content);
  auto source = open_source(root);
  EXPECT_FALSE(source->availability().available);
  const std::string& reason = source->availability().reason;
  EXPECT_NE(reason.find("intel-rapl:0/energy_uj"), std::string::npos) << reason;
  EXPECT_NE(reason.find("energy_uj"), std::string::npos) << reason;
  EXPECT_NE(reason.find(GetParam().expected_message), std::string::npos) << reason;
}

INSTANTIATE_TEST_SUITE_P(
    EmptyGarbageNegative, RaplPowercapBadValue,
    ::testing::Values(BadValueCase{"Empty", "", "empty"}, BadValueCase{"Garbage", "12ab", "'12ab'"},
                      BadValueCase{"Negative", "-42", "negative"},
                      BadValueCase{"TooLarge", "99999999999999999999999", "out of range"}),
    [](const ::testing::TestParamInfo<BadValueCase>& param_info) {
      return param_info.param.label;
    });

TEST(RaplPowercap, GarbageMidRunFailsThatReadOnlyAndRecovers) {
  TempDir root;
  write_zone(root, "intel-rapl:0", "package-0", "1000000");
  auto source = open_source(root);
  read_all(*source);
  set_energy(root, "intel-rapl:0", "garbage");
  auto readings = read_all(*source);
  EXPECT_FALSE(readings[0].ok);
  EXPECT_NE(source->read_error(0).find("'garbage'"), std::string::npos) << source->read_error(0);
  set_energy(root, "intel-rapl:0", "4000000");
  readings = read_all(*source);
  EXPECT_TRUE(readings[0].ok);
  EXPECT_EQ(source->read_error(0), "");
  EXPECT_DOUBLE_EQ(readings[0].value, 3.0);
}

TEST(RaplPowercap, ValueAboveTheWrapRangeIsRejected) {
  TempDir root;
  write_zone(root, "intel-rapl:0", "package-0", "10", "100");
  auto source = open_source(root);
  read_all(*source);
  set_energy(root, "intel-rapl:0", "101");
  auto readings = read_all(*source);
  EXPECT_FALSE(readings[0].ok);
  EXPECT_NE(source->read_error(0).find("above max_energy_range_uj"), std::string::npos);
}

TEST(RaplPowercap, ZoneDisappearingMidRunFailsOnlyThatChannel) {
  TempDir root;
  write_zone(root, "intel-rapl:0", "package-0", "1000000");
  write_zone(root, "intel-rapl:0:2", "dram", "1000000");
  auto source = open_source(root);
  const auto index = index_by_id(*source);
  read_all(*source);
  std::filesystem::remove_all(root.path() / kPowercap / "intel-rapl:0:2");
  set_energy(root, "intel-rapl:0", "2000000");
  auto readings = read_all(*source);
  const std::size_t dram = index.at("rapl:package-0/dram");
  const std::size_t package = index.at("rapl:package-0");
  EXPECT_FALSE(readings[dram].ok);
  EXPECT_NE(source->read_error(dram).find("intel-rapl:0:2"), std::string::npos);
  EXPECT_NE(source->read_error(dram).find("removed"), std::string::npos)
      << source->read_error(dram);
  EXPECT_TRUE(readings[package].ok);
  EXPECT_DOUBLE_EQ(readings[package].value, 1.0);
}

}  // namespace
}  // namespace jouleprof
