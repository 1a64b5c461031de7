#include "sources/rapl_msr.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "sources/backends.hpp"
#include "sources/file_capabilities.hpp"
#include "test_support.hpp"

namespace jouleprof {
namespace {

using testing::TempDir;

// Fake msr files are sparse regular files holding register r's 8 bytes at offset r × stride.
// The msr driver's layout is stride 1, where AMD's adjacent registers would overlap in a regular
// file, so most tests use stride 8 (see rapl_msr.hpp); one test checks the real layout.
constexpr std::uint64_t kFakeStride = 8;

void write_msr(const TempDir& root, int cpu, std::uint64_t address, std::uint64_t value,
               std::uint64_t stride = kFakeStride) {
  const auto path = root.path() / "dev/cpu" / std::to_string(cpu) / "msr";
  std::filesystem::create_directories(path.parent_path());
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::pwrite(fd, &value, sizeof value, static_cast<off_t>(address * stride)),
            static_cast<ssize_t>(sizeof value));
  ::close(fd);
}

void write_cpu(const TempDir& root, int cpu, int package, int core) {
  const std::string dir = "sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/topology/";
  root.write(dir + "physical_package_id", std::to_string(package) + "\n");
  root.write(dir + "core_id", std::to_string(core) + "\n");
}

void write_vendor(const TempDir& root, const std::string& vendor) {
  root.write("proc/cpuinfo", "processor\t: 0\nvendor_id\t: " + vendor +
                                 "\ncpu family\t: 6\nmodel name\t: Fake CPU\n");
}

// Unit register with ESU = 14: 1/16384 J (61 µJ), as on many Intel parts; the upper bits hold
// the power and time units and must be ignored.
constexpr std::uint64_t kIntelUnits = 0x000A0E03;
constexpr double kIntelUnitJ = 1.0 / 16384.0;

std::unique_ptr<Source> open_source(const TempDir& root,
                                    std::map<std::string, std::string> settings = {}) {
  SourceOptions options;
  options.sysfs_root = root.path().string();
  options.settings = std::move(settings);
  return make_rapl_msr_source(options, kFakeStride);
}

std::map<std::string, std::size_t> index_by_id(const Source& source) {
  std::map<std::string, std::size_t> index;
  for (std::size_t i = 0; i < source.channels().size(); ++i) index[source.channels()[i].id] = i;
  return index;
}

// Two sockets with two hyper-threaded cores each: cpus 0,1 (package 0) and 2,3 (package 1),
// numbered so that cpu10 sorts after cpu2.
void write_two_socket_intel(const TempDir& root) {
  write_vendor(root, "GenuineIntel");
  write_cpu(root, 0, 0, 0);
  write_cpu(root, 1, 0, 1);
  write_cpu(root, 2, 1, 0);
  write_cpu(root, 10, 0, 0);  // SMT sibling of cpu0
  for (int lead : {0, 2}) {
    write_msr(root, lead, 0x606, kIntelUnits);
    write_msr(root, lead, 0x611, 1000);
    write_msr(root, lead, 0x619, 500);  // DRAM
    write_msr(root, lead, 0x639, 300);  // PP0; no PP1 (0x641 lies beyond the file: EIO-like)
  }
}

TEST(RaplMsr, IntelOneChannelPerDomainPerPackageFromTheLeadCpu) {
  TempDir root;
  write_two_socket_intel(root);
  auto source = open_source(root);
  ASSERT_TRUE(source->availability().available) << source->availability().reason;
  EXPECT_EQ(source->name(), "rapl-msr");
  const auto index = index_by_id(*source);
  ASSERT_EQ(index.size(), 6u);
  for (const char* id :
       {"rapl-msr:package-0", "rapl-msr:package-0/core", "rapl-msr:package-0/dram",
        "rapl-msr:package-1", "rapl-msr:package-1/core", "rapl-msr:package-1/dram"}) {
    ASSERT_TRUE(index.count(id)) << id;
  }
  const Channel& dram1 = source->channels()[index.at("rapl-msr:package-1/dram")];
  EXPECT_EQ(dram1.parent_id, "rapl-msr:package-1");
  EXPECT_EQ(dram1.source, "rapl-msr");
  EXPECT_EQ(dram1.device, "cpu1");
  EXPECT_NE(dram1.provenance_detail.find("0x619 on cpu 2"), std::string::npos)
      << dram1.provenance_detail;
  EXPECT_TRUE(source->channels()[index.at("rapl-msr:package-0")].is_top_level());
}

TEST(RaplMsr, RealDeviceLayoutReadsRegisterRAtOffsetR) {
  TempDir root;
  write_vendor(root, "GenuineIntel");
  write_cpu(root, 0, 0, 0);
  write_msr(root, 0, 0x606, kIntelUnits, 1);
  write_msr(root, 0, 0x611, 100, 1);
  write_msr(root, 0, 0x639, 7, 1);
  SourceOptions options;
  options.sysfs_root = root.path().string();
  auto source = make_rapl_msr_source(options);
  ASSERT_TRUE(source->availability().available) << source->availability().reason;
  std::vector<Reading> readings(source->channels().size());
  source->read(readings);
  write_msr(root, 0, 0x611, 100 + 16384, 1);
  source->read(readings);
  EXPECT_EQ(source->channels()[0].id, "rapl-msr:package-0");
  EXPECT_DOUBLE_EQ(readings[0].value, 1.0);
}

TEST(RaplMsr, CountsTimesTheUnitRegisterAreJoulesAndThe32BitWrapIsUndone) {
  TempDir root;
  write_two_socket_intel(root);
  write_msr(root, 0, 0x611, 0xFFFFF000);  // 4096 counts below the wrap
  auto source = open_source(root);
  const auto index = index_by_id(*source);
  std::vector<Reading> readings(source->channels().size());
  source->read(readings);
  EXPECT_EQ(readings[index.at("rapl-msr:package-0")].value, 0.0);
  // Upper 32 bits hold reserved garbage on real parts: only the low 32 count.
  write_msr(root, 0, 0x611, 0xDEAD'0000'0000'1000ull);
  write_msr(root, 2, 0x619, 500 + 16384);
  source->read(readings);
  ASSERT_TRUE(readings[index.at("rapl-msr:package-0")].ok) << source->read_error(0);
  EXPECT_DOUBLE_EQ(readings[index.at("rapl-msr:package-0")].value, 8192 * kIntelUnitJ);
  EXPECT_DOUBLE_EQ(readings[index.at("rapl-msr:package-1/dram")].value, 1.0);
}

TEST(RaplMsr, DramUnitCanBeOverriddenForServerParts) {
  TempDir root;
  write_two_socket_intel(root);
  auto source = open_source(root, {{"rapl-msr.dram-energy-unit-j", "1.52587890625e-05"}});
  const auto index = index_by_id(*source);
  std::vector<Reading> readings(source->channels().size());
  source->read(readings);
  write_msr(root, 0, 0x619, 500 + 65536);
  source->read(readings);
  EXPECT_DOUBLE_EQ(readings[index.at("rapl-msr:package-0/dram")].value, 1.0);
  EXPECT_NE(source->channels()[index.at("rapl-msr:package-0/dram")].provenance_detail.find(
                "unit from settings"),
            std::string::npos);

  auto bad = open_source(root, {{"rapl-msr.dram-energy-unit-j", "fast"}});
  EXPECT_FALSE(bad->availability().available);
  EXPECT_NE(bad->availability().reason.find("'fast'"), std::string::npos);
}

TEST(RaplMsr, AmdPackageAndCoreWhereCoreSumsEveryPhysicalCore) {
  TempDir root;
  write_vendor(root, "AuthenticAMD");
  write_cpu(root, 0, 0, 0);
  write_cpu(root, 1, 0, 1);
  write_cpu(root, 2, 0, 0);  // SMT sibling of cpu0: not counted twice
  // ESU = 16: 2^-16 J, as on Zen.
  for (int cpu : {0, 1}) {
    write_msr(root, cpu, 0xC0010299, 0x000A1003);
    write_msr(root, cpu, 0xC001029A, 100);
    write_msr(root, cpu, 0xC001029B, 100);
  }
  write_msr(root, 2, 0xC001029A, 0);
  auto source = open_source(root);
  ASSERT_TRUE(source->availability().available) << source->availability().reason;
  const auto index = index_by_id(*source);
  ASSERT_EQ(index.size(), 2u);
  const std::size_t core = index.at("rapl-msr:package-0/core");
  EXPECT_EQ(source->channels()[core].parent_id, "rapl-msr:package-0");
  EXPECT_NE(source->channels()[core].provenance_detail.find("cpus 0,1"), std::string::npos)
      << source->channels()[core].provenance_detail;
  std::vector<Reading> readings(2);
  source->read(readings);
  write_msr(root, 0, 0xC001029A, 100 + 65536);
  write_msr(root, 1, 0xC001029A, 100 + 2 * 65536);
  write_msr(root, 2, 0xC001029A, 999999);  // ignored sibling
  source->read(readings);
  EXPECT_DOUBLE_EQ(readings[core].value, 3.0);
}

TEST(RaplMsr, MissingMsrDriverSaysModprobe) {
  TempDir root;
  write_vendor(root, "GenuineIntel");
  write_cpu(root, 0, 0, 0);
  auto source = open_source(root);
  EXPECT_FALSE(source->availability().available);
  EXPECT_NE(source->availability().reason.find("msr driver is not loaded"), std::string::npos);
  EXPECT_NE(source->availability().fix.find("modprobe msr"), std::string::npos);
}

TEST(RaplMsr, UnknownVendorAndMissingCpuinfoAreExplained) {
  TempDir root;
  write_vendor(root, "CentaurHauls");
  EXPECT_NE(open_source(root)->availability().reason.find("'CentaurHauls'"), std::string::npos);
  TempDir empty;
  EXPECT_NE(open_source(empty)->availability().reason.find("cpuinfo"), std::string::npos);
}

TEST(RaplMsr, CpuWithoutRaplRegistersIsUnavailable) {
  TempDir root;
  write_vendor(root, "GenuineIntel");
  write_cpu(root, 0, 0, 0);
  write_msr(root, 0, 0x10, 1);  // an msr file that ends before the unit register
  auto source = open_source(root);
  EXPECT_FALSE(source->availability().available);
  EXPECT_NE(source->availability().reason.find("does not expose the RAPL registers"),
            std::string::npos)
      << source->availability().reason;
}

TEST(RaplMsr, PermissionDeniedPointsToRootOrOtherPaths) {
  TempDir root;
  write_two_socket_intel(root);
  std::filesystem::permissions(root.path() / "dev/cpu/0/msr", std::filesystem::perms::none);
  testing::WithoutFileCapabilities unprivileged;
  if (!unprivileged.effective()) GTEST_SKIP() << "cannot drop CAP_DAC_OVERRIDE in this sandbox";
  auto source = open_source(root);
  EXPECT_FALSE(source->availability().available);
  EXPECT_NE(source->availability().reason.find("Permission denied"), std::string::npos);
  EXPECT_NE(source->availability().fix.find("root"), std::string::npos);
  EXPECT_NE(source->availability().fix.find("rapl-powercap"), std::string::npos);
}

TEST(RaplMsr, RegisterUnreadableMidRunFailsThatChannel) {
  TempDir root;
  write_two_socket_intel(root);
  auto source = open_source(root);
  const auto index = index_by_id(*source);
  std::vector<Reading> readings(source->channels().size());
  source->read(readings);
  // Shrink cpu2's msr file below the DRAM register, so its read comes up short.
  ASSERT_EQ(::truncate((root.path() / "dev/cpu/2/msr").c_str(), 0x612 * kFakeStride), 0);
  source->read(readings);
  const std::size_t dram1 = index.at("rapl-msr:package-1/dram");
  EXPECT_FALSE(readings[dram1].ok);
  EXPECT_NE(source->read_error(dram1).find("0x619"), std::string::npos)
      << source->read_error(dram1);
  EXPECT_TRUE(readings[index.at("rapl-msr:package-0/dram")].ok);
}

}  // namespace
}  // namespace jouleprof
