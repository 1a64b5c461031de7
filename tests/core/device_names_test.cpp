#include "jouleprof/device_names.hpp"

#include <gtest/gtest.h>

namespace jouleprof {
namespace {

TEST(DeviceNames, PackagesAreCpuFollowedByDigits) {
  EXPECT_TRUE(is_cpu_package_device("cpu0"));
  EXPECT_TRUE(is_cpu_package_device("cpu12"));
  EXPECT_FALSE(is_cpu_package_device("cpu"));
  EXPECT_FALSE(is_cpu_package_device("cpux"));
  EXPECT_FALSE(is_cpu_package_device("gpu0"));
}

TEST(DeviceNames, APackageTrackConsumesItsOwnPackageAndTheWholeCpu) {
  EXPECT_TRUE(track_consumes_device("cpu0", "cpu0"));
  EXPECT_TRUE(track_consumes_device("cpu1", "cpu"));
  EXPECT_TRUE(track_consumes_device("cpu", "cpu"));
  EXPECT_FALSE(track_consumes_device("cpu0", "cpu1"));
  EXPECT_FALSE(track_consumes_device("gpu0", "cpu"));
  EXPECT_FALSE(track_consumes_device("cpu", "cpu0"));  // a package is not the whole CPU
  EXPECT_FALSE(track_consumes_device("gpu0", "gpu1"));
}

}  // namespace
}  // namespace jouleprof
