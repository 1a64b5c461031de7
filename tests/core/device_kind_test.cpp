#include "jouleprof/device_kind.hpp"

#include <gtest/gtest.h>

#include "jouleprof/device_names.hpp"

namespace jouleprof {
namespace {

TEST(DeviceKind, NamesRoundTrip) {
  for (DeviceKind kind : {DeviceKind::kCpu, DeviceKind::kCuda}) {
    EXPECT_EQ(device_kind_from_string(to_string(kind)), kind);
  }
  EXPECT_EQ(to_string(DeviceKind::kCpu), "cpu");
  EXPECT_EQ(to_string(DeviceKind::kCuda), "cuda");
}

TEST(DeviceKind, UnknownNamesAreNotKinds) {
  EXPECT_FALSE(device_kind_from_string("tpu"));
  EXPECT_FALSE(device_kind_from_string("gpu"));  // a channel device prefix, not a framework kind
  EXPECT_FALSE(device_kind_from_string("CPU"));
  EXPECT_FALSE(device_kind_from_string(""));
}

TEST(DeviceKind, AKindSelectsTheChannelsOfItsPrefix) {
  EXPECT_EQ(channel_device_prefix(DeviceKind::kCpu), "cpu");
  EXPECT_EQ(channel_device_prefix(DeviceKind::kCuda), "gpu");
  EXPECT_TRUE(device_selects(to_string(DeviceKind::kCpu), "cpu"));
  EXPECT_TRUE(device_selects(to_string(DeviceKind::kCpu), "cpu1"));
  EXPECT_TRUE(device_selects(to_string(DeviceKind::kCuda), "gpu0"));
  EXPECT_FALSE(device_selects(to_string(DeviceKind::kCpu), "gpu0"));
  EXPECT_FALSE(device_selects(to_string(DeviceKind::kCuda), "cpu0"));
  EXPECT_FALSE(device_selects(to_string(DeviceKind::kCpu), ""));
}

}  // namespace
}  // namespace jouleprof
