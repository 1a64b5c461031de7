#include "sources/sysfs_file.hpp"

#include <gtest/gtest.h>

#include <filesystem>

#include "test_support.hpp"

namespace jouleprof::sysfs {
namespace {

TEST(SysfsFile, UnderRootJoinsAbsolutePaths) {
  EXPECT_EQ(under_root("/", "/sys/class"), std::filesystem::path("/sys/class"));
  EXPECT_EQ(under_root("/tmp/fake", "/sys/class"), std::filesystem::path("/tmp/fake/sys/class"));
  EXPECT_EQ(under_root("", "/proc/cpuinfo"), std::filesystem::path("/proc/cpuinfo"));
}

TEST(SysfsFile, NaturalOrderComparesNumbersAsNumbers) {
  EXPECT_TRUE(natural_less("cpu2", "cpu10"));
  EXPECT_FALSE(natural_less("cpu10", "cpu2"));
  EXPECT_TRUE(natural_less("intel-rapl:0", "intel-rapl:0:0"));
  EXPECT_TRUE(natural_less("intel-rapl:0:9", "intel-rapl:0:10"));
  EXPECT_FALSE(natural_less("hwmon1", "hwmon1"));
}

TEST(SysfsFile, ParseErrorsNameFileFieldAndValue) {
  auto garbage = parse_unsigned("/x/energy_uj", "energy_uj", "1.5");
  ASSERT_FALSE(garbage);
  EXPECT_EQ(garbage.error().code(), ErrorCode::kInvalidInput);
  EXPECT_NE(garbage.error().message().find("/x/energy_uj"), std::string::npos);
  EXPECT_NE(garbage.error().message().find("'1.5'"), std::string::npos);
  EXPECT_FALSE(parse_unsigned("f", "v", "-1"));
  EXPECT_FALSE(parse_unsigned("f", "v", " "));
  EXPECT_EQ(*parse_signed("f", "v", " -25\n"), -25);
  EXPECT_EQ(*parse_unsigned_any_base("f", "v", "0x1F"), 31u);
  EXPECT_EQ(*parse_unsigned_any_base("f", "v", "12"), 12u);
  EXPECT_FALSE(parse_unsigned_any_base("f", "v", "0xZZ"));
}

TEST(SysfsFile, MissingFileIsNotFound) {
  testing::TempDir root;
  auto missing = read_text(root.path() / "nope");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code(), ErrorCode::kNotFound);
  auto listing = list_directory(root.path() / "nope");
  ASSERT_FALSE(listing);
  EXPECT_EQ(listing.error().code(), ErrorCode::kNotFound);
}

TEST(SysfsFile, OpenFileRereadsFromOffsetZeroAndNoticesRemoval) {
  testing::TempDir root;
  const auto path = root.write("counter", "17\n");
  auto file = OpenFile::open(path);
  ASSERT_TRUE(file);
  EXPECT_EQ(*file->read_unsigned("counter"), 17u);
  root.write("counter", "123456\n");
  EXPECT_EQ(*file->read_unsigned("counter"), 123456u);
  std::filesystem::remove(path);
  auto gone = file->read_unsigned("counter");
  ASSERT_FALSE(gone);
  EXPECT_NE(gone.error().message().find("removed"), std::string::npos);
}

}  // namespace
}  // namespace jouleprof::sysfs
