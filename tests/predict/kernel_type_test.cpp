#include "predict/kernel_type.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "predict/kernel_features.hpp"

namespace jouleprof::predict {
namespace {

TEST(KernelType, NamesRoundTripAndUnknownNamesAreNoType) {
  for (int i = 0; i <= static_cast<int>(KernelType::kConcat); ++i) {
    const auto type = static_cast<KernelType>(i);
    EXPECT_EQ(kernel_type_from_string(to_string(type)), type) << to_string(type);
  }
  EXPECT_EQ(to_string(KernelType::kConvBnRelu), "conv-bn-relu");
  EXPECT_EQ(to_string(KernelType::kChannelShuffle), "channelshuffle");
  EXPECT_FALSE(kernel_type_from_string("conv"));  // an op, not a kernel type
  EXPECT_FALSE(kernel_type_from_string("transformer"));
  EXPECT_FALSE(kernel_type_from_string(""));
}

TEST(KernelType, EveryTypeButConcatIsBenchable) {
  const auto benchable = benchable_kernel_types();
  EXPECT_EQ(benchable.size(), 14u);
  EXPECT_EQ(std::count(benchable.begin(), benchable.end(), KernelType::kConcat), 0);
  EXPECT_EQ(benchable.front(), KernelType::kConvBnRelu);
  const std::string list = benchable_kernel_type_list();
  EXPECT_EQ(list.rfind("conv-bn-relu, dwconv-bn-relu, fc, ", 0), 0u) << list;
  EXPECT_EQ(list.find("concat"), std::string::npos) << list;
}

TEST(KernelType, AnUnknownPredictorTypeGetsTheOthersFeatures) {
  EXPECT_EQ(feature_set_of("conv-bn-relu"), FeatureSet::kConv);
  EXPECT_EQ(feature_set_of("add-relu"), FeatureSet::kAdd);
  EXPECT_EQ(feature_set_of("avgpool"), FeatureSet::kPool);
  EXPECT_EQ(feature_set_of("hswish"), FeatureSet::kOthers);
  EXPECT_EQ(feature_set_of("fcos-head"), FeatureSet::kOthers);
}

}  // namespace
}  // namespace jouleprof::predict
