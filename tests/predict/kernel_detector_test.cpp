#include "predict/kernel_detector.hpp"

#include <gtest/gtest.h>

#include "test_support.hpp"

namespace jouleprof::predict {
namespace {

TensorShape nhwc(int h, int c) {
  TensorShape s;
  s.rank = 4, s.h = h, s.w = h, s.c = c;
  return s;
}

GraphNode node(std::string name, std::string type, std::vector<std::string> inputs,
               std::vector<TensorShape> in, TensorShape out, int ks = 0, int stride = 0) {
  GraphNode n;
  n.name = std::move(name);
  n.op_type = std::move(type);
  n.inputs = std::move(inputs);
  n.input_shapes = std::move(in);
  n.output_shape = out;
  n.kernel_size = ks;
  n.stride = stride;
  return n;
}

FusionRules rules(std::map<std::string, bool> r) { return FusionRules(std::move(r)); }

std::vector<std::string> ops(const std::vector<DetectedKernel>& kernels) {
  std::vector<std::string> out;
  for (const auto& k : kernels) out.push_back(k.config.op);
  return out;
}

// input → conv → bn → relu → maxpool
ModelGraph conv_block() {
  ModelGraph g;
  g.name = "block";
  g.nodes.push_back(node("conv", "Conv2D", {"input"}, {nhwc(56, 32)}, nhwc(28, 64), 3, 2));
  g.nodes.push_back(node("bn", "FusedBatchNormV3", {"conv"}, {nhwc(28, 64)}, nhwc(28, 64)));
  g.nodes.push_back(node("relu", "Relu6", {"bn"}, {nhwc(28, 64)}, nhwc(28, 64)));
  g.nodes.push_back(node("pool", "MaxPool", {"relu"}, {nhwc(28, 64)}, nhwc(14, 64), 2, 2));
  return g;
}

TEST(KernelDetector, FusesConvBnReluWhenTheRulesAllow) {
  DetectionOptions options;
  options.rules = rules({{"BF_conv_bn", true}, {"BF_bn_relu", true}, {"BF_relu_maxpool", false}});
  auto kernels = detect_kernels(conv_block(), options);
  ASSERT_TRUE(kernels.ok()) << kernels.error().message();
  ASSERT_EQ(ops(*kernels), (std::vector<std::string>{"conv-bn-relu", "maxpool"}));
  const KernelConfig& k = (*kernels)[0].config;
  EXPECT_EQ(k.hw, 56);
  EXPECT_EQ(k.cin, 32);
  EXPECT_EQ(k.cout, 64);
  EXPECT_EQ(k.kernel_size, 3);
  EXPECT_EQ(k.stride, 2);
  EXPECT_EQ((*kernels)[0].members, (std::vector<std::string>{"conv", "bn", "relu"}));
}

TEST(KernelDetector, RulesThatSayNoKeepOpsApart) {
  DetectionOptions options;
  options.rules = rules({{"BF_conv_bn", true}, {"BF_bn_relu", false}});
  auto kernels = detect_kernels(conv_block(), options);
  ASSERT_TRUE(kernels.ok());
  EXPECT_EQ(ops(*kernels), (std::vector<std::string>{"conv-bn", "relu", "maxpool"}));
}

TEST(KernelDetector, NoFusionIntoAProducerWithTwoConsumers) {
  ModelGraph g;
  g.nodes.push_back(node("conv", "Conv", {"x"}, {nhwc(14, 8)}, nhwc(14, 8), 1, 1));
  g.nodes.push_back(node("relu", "Relu", {"conv"}, {nhwc(14, 8)}, nhwc(14, 8)));
  g.nodes.push_back(node("add", "Add", {"conv", "relu"}, {nhwc(14, 8), nhwc(14, 8)}, nhwc(14, 8)));
  DetectionOptions options;
  options.rules = rules({{"BF_conv_relu", true}, {"BF_relu_add", true}});
  auto kernels = detect_kernels(g, options);
  ASSERT_TRUE(kernels.ok());
  EXPECT_EQ(ops(*kernels), (std::vector<std::string>{"conv", "relu", "add"}));
  EXPECT_EQ((*kernels)[2].config.input_channels, (std::vector<int>{8, 8}));
}

TEST(KernelDetector, DepthwiseConvolutionByGroups) {
  GraphNode dw = node("dw", "Conv", {"x"}, {nhwc(56, 64)}, nhwc(56, 64), 3, 1);
  dw.groups = 64;
  EXPECT_EQ(normalise_op_type(dw), "dwconv");
  dw.groups = 2;
  EXPECT_EQ(normalise_op_type(dw), "conv");
}

TEST(KernelDetector, DropsNoOpsAndFusesAcrossThem) {
  ModelGraph g;
  g.nodes.push_back(node("fc", "Gemm", {"flatten"}, {TensorShape{2, 1, 1, 1, 1024}},
                         TensorShape{2, 1, 1, 1, 10}));
  g.nodes.push_back(
      node("flatten", "Flatten", {"gap"}, {nhwc(1, 1024)}, TensorShape{2, 1, 1, 1, 1024}));
  g.nodes.push_back(node("gap", "GlobalAveragePool", {"x"}, {nhwc(7, 1024)}, nhwc(1, 1024)));
  g.nodes.push_back(
      node("id", "Identity", {"fc"}, {TensorShape{2, 1, 1, 1, 10}}, TensorShape{2, 1, 1, 1, 10}));
  g.nodes.push_back(
      node("relu", "Relu", {"id"}, {TensorShape{2, 1, 1, 1, 10}}, TensorShape{2, 1, 1, 1, 10}));
  DetectionOptions options;
  options.rules = rules({{"BF_fc_relu", true}});
  auto kernels = detect_kernels(g, options);  // nodes out of order on purpose: detection sorts
  ASSERT_TRUE(kernels.ok()) << kernels.error().message();
  EXPECT_EQ(ops(*kernels), (std::vector<std::string>{"gap", "fc-relu"}));
  EXPECT_EQ((*kernels)[1].config.cin, 1024);
  EXPECT_EQ((*kernels)[1].config.cout, 10);
  EXPECT_EQ((*kernels)[0].config.hw, 7);
}

TEST(KernelDetector, FusesSqueezeExcitationBlocks) {
  ModelGraph g;
  g.nodes.push_back(node("gap", "GlobalAveragePool", {"x"}, {nhwc(14, 96)}, nhwc(1, 96)));
  g.nodes.push_back(node("fc1", "Conv", {"gap"}, {nhwc(1, 96)}, nhwc(1, 24), 1, 1));
  g.nodes.push_back(node("relu", "Relu", {"fc1"}, {nhwc(1, 24)}, nhwc(1, 24)));
  g.nodes.push_back(node("fc2", "Conv", {"relu"}, {nhwc(1, 24)}, nhwc(1, 96), 1, 1));
  g.nodes.push_back(node("gate", "HardSigmoid", {"fc2"}, {nhwc(1, 96)}, nhwc(1, 96)));
  g.nodes.push_back(node("scale", "Mul", {"x", "gate"}, {nhwc(14, 96), nhwc(1, 96)}, nhwc(14, 96)));
  DetectionOptions options;
  options.rules = rules({{"BF_conv_relu", true}});
  auto kernels = detect_kernels(g, options);
  ASSERT_TRUE(kernels.ok());
  ASSERT_EQ(ops(*kernels), (std::vector<std::string>{"se"}));
  EXPECT_EQ((*kernels)[0].config.hw, 14);
  EXPECT_EQ((*kernels)[0].config.cin, 96);
  EXPECT_EQ((*kernels)[0].members.size(), 6u);
}

TEST(KernelDetector, FusesBothHswishForms) {
  ModelGraph g;
  // x·hsigmoid(x)
  g.nodes.push_back(node("hs", "HardSigmoid", {"x"}, {nhwc(28, 16)}, nhwc(28, 16)));
  g.nodes.push_back(node("m1", "Mul", {"x", "hs"}, {nhwc(28, 16), nhwc(28, 16)}, nhwc(28, 16)));
  // y·relu6(y + 3)/6 on the result (the constants are weights, so not data inputs)
  g.nodes.push_back(node("a", "Add", {"m1"}, {nhwc(28, 16)}, nhwc(28, 16)));
  g.nodes.push_back(node("r", "Relu6", {"a"}, {nhwc(28, 16)}, nhwc(28, 16)));
  g.nodes.push_back(node("m2", "Mul", {"m1", "r"}, {nhwc(28, 16), nhwc(28, 16)}, nhwc(28, 16)));
  g.nodes.push_back(node("d", "Div", {"m2"}, {nhwc(28, 16)}, nhwc(28, 16)));
  auto kernels = detect_kernels(g, DetectionOptions{});
  ASSERT_TRUE(kernels.ok());
  EXPECT_EQ(ops(*kernels), (std::vector<std::string>{"hswish", "hswish"}));
  EXPECT_EQ((*kernels)[1].members, (std::vector<std::string>{"a", "r", "m2", "d"}));
}

TEST(KernelDetector, FusesChannelShuffleBeforeDroppingReshapes) {
  ModelGraph g;
  g.nodes.push_back(node("r1", "Reshape", {"x"}, {nhwc(28, 116)}, TensorShape{5, 1, 28, 28, 58}));
  g.nodes.push_back(node("t", "Transpose", {"r1"}, {TensorShape{5, 1, 28, 28, 58}},
                         TensorShape{5, 1, 28, 28, 58}));
  g.nodes.push_back(node("r2", "Reshape", {"t"}, {TensorShape{5, 1, 28, 28, 58}}, nhwc(28, 116)));
  g.nodes.push_back(node("other", "Reshape", {"r2"}, {nhwc(28, 116)}, nhwc(28, 116)));
  auto kernels = detect_kernels(g, DetectionOptions{});
  ASSERT_TRUE(kernels.ok());
  ASSERT_EQ(ops(*kernels), (std::vector<std::string>{"channelshuffle"}));
  EXPECT_EQ((*kernels)[0].config.cin, 116);
}

TEST(KernelDetector, CycleIsAnError) {
  ModelGraph g;
  g.name = "loop";
  g.nodes.push_back(node("a", "Relu", {"b"}, {nhwc(4, 4)}, nhwc(4, 4)));
  g.nodes.push_back(node("b", "Relu", {"a"}, {nhwc(4, 4)}, nhwc(4, 4)));
  auto kernels = detect_kernels(g, DetectionOptions{});
  ASSERT_FALSE(kernels.ok());
  EXPECT_NE(kernels.error().message().find("cycle"), std::string::npos);
}

TEST(FusionRules, ReadsNnMeterFormatAndRejectsBadRules) {
  jouleprof::testing::TempDir dir;
  auto ok = FusionRules::from_file(dir.write(
      "r.json",
      R"({"BF_conv_bn": {"obey": true, "latency": {"ops": 1.0}}, "BF_bn_relu": {"obey": false}})"));
  ASSERT_TRUE(ok.ok()) << ok.error().message();
  EXPECT_TRUE(ok->fusible("conv", "bn"));
  EXPECT_FALSE(ok->fusible("bn", "relu"));
  EXPECT_FALSE(ok->fusible("conv", "relu"));  // no rule: not fused
  auto bad = FusionRules::from_file(dir.write("bad.json", R"({"BF_conv_bn": {"obey": "yes"}})"));
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message().find("BF_conv_bn.obey"), std::string::npos)
      << bad.error().message();
}

TEST(FusionRules, TheShippedDefaultLoads) {
  auto rules = FusionRules::from_file(default_fusion_rules_path());
  ASSERT_TRUE(rules.ok()) << rules.error().message();
  EXPECT_TRUE(rules->fusible("conv", "bn"));
  EXPECT_TRUE(rules->fusible("dwconv", "relu"));
}

}  // namespace
}  // namespace jouleprof::predict
