#include "jouleprof/device_names.hpp"

#include <gtest/gtest.h>

namespace jouleprof {
namespace {

TEST(DeviceNames, ANameSelectsItselfAndNothingElse) {
  EXPECT_TRUE(device_selects("cpu0", "cpu0"));
  EXPECT_TRUE(device_selects("gpu0", "gpu0"));
  EXPECT_FALSE(device_selects("cpu0", "cpu1"));
  EXPECT_FALSE(device_selects("gpu0", "gpu1"));
  EXPECT_FALSE(device_selects("cpu0", "cpu"));  // a package is not the whole CPU
}

TEST(DeviceNames, TheWholeCpuSelectsEachPackage) {
  EXPECT_TRUE(device_selects("cpu", "cpu"));
  EXPECT_TRUE(device_selects("cpu", "cpu1"));
  EXPECT_TRUE(device_selects("cpu", "cpu12"));
  EXPECT_FALSE(device_selects("cpu", "cpux"));
  EXPECT_FALSE(device_selects("cpu", "gpu0"));
}

TEST(DeviceNames, GpuAndCudaSelectEveryGpu) {
  for (const char* every_gpu : {"gpu", "cuda"}) {
    EXPECT_TRUE(device_selects(every_gpu, "gpu0"));
    EXPECT_TRUE(device_selects(every_gpu, "gpu3"));
    EXPECT_FALSE(device_selects(every_gpu, "cpu0"));
  }
}

TEST(DeviceNames, NoNameSelectsEveryDevice) {
  EXPECT_TRUE(device_selects("", "cpu0"));
  EXPECT_TRUE(device_selects("", "anything"));
  EXPECT_FALSE(device_selects("anything", ""));
}

}  // namespace
}  // namespace jouleprof
