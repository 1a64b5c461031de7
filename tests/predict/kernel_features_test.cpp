#include "predict/kernel_features.hpp"

#include <gtest/gtest.h>

namespace jouleprof::predict {
namespace {

KernelConfig conv(int hw, int cin, int cout, int ks, int s, std::string op = "conv-bn-relu") {
  KernelConfig k;
  k.name = "k";
  k.op = std::move(op);
  k.hw = hw, k.cin = cin, k.cout = cout, k.kernel_size = ks, k.stride = s;
  return k;
}

TEST(KernelFeatures, ConvParamsAndFlopsFollowTheFormulas) {
  // Params = Cout·(KS²·Cin + 1) = 64·(9·3 + 1) = 1792; FLOPs = 2·(224/2)²·1792.
  const KernelConfig k = conv(224, 3, 64, 3, 2);
  EXPECT_DOUBLE_EQ(conv_params(k), 1792.0);
  EXPECT_DOUBLE_EQ(conv_flops(k), 2.0 * 112.0 * 112.0 * 1792.0);
}

TEST(KernelFeatures, StrideDividesAsARealNumber) {
  // HW/S = 7/2 = 3.5, not 3: nn-Meter's formula divides in floating point.
  const KernelConfig k = conv(7, 8, 8, 1, 2);
  EXPECT_DOUBLE_EQ(conv_flops(k), 2.0 * 3.5 * 3.5 * 8.0 * 9.0);
}

TEST(KernelFeatures, ConvFeatureVectorInPaperOrder) {
  auto f = features_of(conv(56, 64, 128, 3, 1));
  ASSERT_TRUE(f.ok()) << f.error().message();
  const double params = 128.0 * (9.0 * 64.0 + 1.0);
  const double flops = 2.0 * 56.0 * 56.0 * params;
  EXPECT_EQ(*f, (std::vector<double>{56, 64, 128, 3, 1, flops / 2e6, params / 1e6}));
}

TEST(KernelFeatures, DepthwiseUsesDepthwiseFormulas) {
  auto f = features_of(conv(112, 32, 32, 3, 1, "dwconv-bn-relu"));
  ASSERT_TRUE(f.ok());
  const double params = 32.0 * (9.0 + 1.0);
  EXPECT_DOUBLE_EQ((*f)[5], 2.0 * 112.0 * 112.0 * params / 2e6);
  EXPECT_DOUBLE_EQ((*f)[6], params / 1e6);
}

TEST(KernelFeatures, FcFeatures) {
  KernelConfig k;
  k.op = "fc";
  k.cin = 1024, k.cout = 1000;
  auto f = features_of(k);
  ASSERT_TRUE(f.ok());
  const double flops = (2.0 * 1024 + 1) * 1000;
  EXPECT_EQ(*f, (std::vector<double>{1024, 1000, flops / 2e6, flops / 1e6}));
  EXPECT_DOUBLE_EQ(*kernel_flops(k), flops);
}

TEST(KernelFeatures, PoolAddConcatAndOthers) {
  KernelConfig pool = conv(112, 64, 64, 3, 2, "maxpool");
  EXPECT_EQ(*features_of(pool), (std::vector<double>{112, 64, 64, 3, 2}));
  KernelConfig add;
  add.op = "add-relu", add.hw = 28, add.input_channels = {96, 96};
  EXPECT_EQ(*features_of(add), (std::vector<double>{28, 96, 96}));
  KernelConfig concat;
  concat.op = "concat", concat.hw = 14, concat.input_channels = {64, 32};
  EXPECT_EQ(*features_of(concat), (std::vector<double>{14, 64, 32, 0, 0}));
  KernelConfig se;
  se.op = "se", se.hw = 14, se.cin = 96;
  EXPECT_EQ(*features_of(se), (std::vector<double>{14, 96}));
  EXPECT_FALSE(kernel_flops(se).has_value());
}

TEST(KernelFeatures, EveryConvVariantUsesTheConvPredictor) {
  for (const char* op :
       {"conv", "conv-bn", "conv-relu6", "conv-bn-hswish", "conv-block", "conv-bn-relu"}) {
    EXPECT_EQ(predictor_type(op), "conv-bn-relu") << op;
  }
  EXPECT_EQ(predictor_type("dwconv-bn-relu6"), "dwconv-bn-relu");
  EXPECT_EQ(predictor_type("global-pool"), "global-avgpool");
  EXPECT_EQ(predictor_type("fc-relu"), "fc");
  EXPECT_EQ(predictor_type("channelshuffle"), "channelshuffle");
  // The whole first word decides: these only begin with the letters of a conv or an fc.
  EXPECT_EQ(predictor_type("convtranspose"), "convtranspose");
  EXPECT_EQ(predictor_type("fcos-head"), "fcos-head");
  EXPECT_EQ(predictor_type("dwconvx"), "dwconvx");
}

TEST(KernelFeatures, MissingFieldIsNamed) {
  auto f = features_of(conv(56, 0, 128, 3, 1));
  ASSERT_FALSE(f.ok());
  EXPECT_NE(f.error().message().find("CIN"), std::string::npos) << f.error().message();
  auto zero_stride = features_of(conv(56, 8, 8, 3, 0));
  ASSERT_FALSE(zero_stride.ok());
  EXPECT_NE(zero_stride.error().message().find("STRIDES"), std::string::npos);
}

}  // namespace
}  // namespace jouleprof::predict
