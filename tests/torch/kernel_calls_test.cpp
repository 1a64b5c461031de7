#include "torch/kernel_calls.hpp"

#include <gtest/gtest.h>

#include "jouleprof/torch.hpp"
#include "predict/fusion_rule_measurement.hpp"
#include "predict/fusion_rules.hpp"
#include "predict/kernel_space.hpp"

namespace jouleprof::torch_adapter {
namespace {

using predict::KernelConfig;
using Shape = std::vector<std::int64_t>;

// The output each kernel type must have, from its configuration alone.
Shape expected_output(const KernelConfig& k) {
  const auto out = [](int hw, int ks, int s) {
    return std::int64_t{(hw + 2 * ((ks - 1) / 2) - ks) / s + 1};
  };
  if (k.op == "fc") return {1, k.cout};
  if (k.op == "global-avgpool") return {1, k.cin, 1, 1};
  if (k.op == "conv-bn-relu")
    return {1, k.cout, out(k.hw, k.kernel_size, k.stride), out(k.hw, k.kernel_size, k.stride)};
  if (k.op == "dwconv-bn-relu" || k.op == "maxpool" || k.op == "avgpool") {
    return {1, k.cin, out(k.hw, k.kernel_size, k.stride), out(k.hw, k.kernel_size, k.stride)};
  }
  return {1, k.cin, k.hw, k.hw};
}

TEST(KernelCalls, EveryBenchableTypeBuildsRunsAndHasTheRightShape) {
  auto spaces = predict::default_kernel_spaces();
  for (const predict::KernelType type : predict::benchable_kernel_types()) {
    predict::KernelSpace space = spaces.at(std::string(to_string(type)));
    // Small shapes keep the test quick; the draws still vary HW, channels, KS and S.
    if (!space.hw.empty()) space.hw = {1, 3, 7, 14};
    space.cin = {3, 48};
    space.cout = {3, 48};
    auto kernels = predict::sample_kernels(space, 4, 11);
    ASSERT_TRUE(kernels.ok()) << kernels.error().message();
    for (const KernelConfig& k : *kernels) {
      auto call = make_kernel_call(k, {});
      ASSERT_TRUE(call.ok()) << k.name << ": " << call.error().message();
      EXPECT_EQ(call->output_shape, expected_output(k)) << k.name << ": " << call->description;
      EXPECT_EQ(call->input_shape[1], k.cin) << k.name;
      EXPECT_TRUE(call->run().ok()) << k.name;
    }
  }
}

TEST(KernelCalls, ConvolutionPadsForSameOutputAndStrides) {
  KernelConfig k;
  k.name = "c";
  k.op = "conv-bn-relu";
  k.hw = 15;
  k.cin = 4;
  k.cout = 6;
  k.kernel_size = 3;
  k.stride = 2;
  auto call = make_kernel_call(k, {});
  ASSERT_TRUE(call.ok()) << call.error().message();
  EXPECT_EQ(call->output_shape, (Shape{1, 6, 8, 8}));  // ceil(15 / 2)
}

TEST(KernelCalls, UnknownTypesAndDevicesAreErrors) {
  KernelConfig k;
  k.name = "k1";
  k.op = "lstm";
  k.hw = 7;
  k.cin = 8;
  auto call = make_kernel_call(k, {});
  ASSERT_FALSE(call.ok());
  EXPECT_NE(call.error().message().find("lstm"), std::string::npos) << call.error().message();
  k.op = "relu";
  if (!cuda_available()) {
    auto no_cuda = make_kernel_call(k, {.device = DeviceKind::kCuda});
    ASSERT_FALSE(no_cuda.ok());
    EXPECT_EQ(no_cuda.error().code(), ErrorCode::kUnavailable);
    EXPECT_NE(no_cuda.error().message().find("KernelCallOptions::device cuda"), std::string::npos);
  }
}

TEST(KernelCalls, EveryRuleOfTheShippedFileBuildsItsThreeBlocks) {
  auto rules = predict::FusionRules::from_file(predict::default_fusion_rules_path());
  ASSERT_TRUE(rules.ok()) << rules.error().message();
  RuleBlockShape shape;
  shape.hw = 6;
  shape.channels = 4;
  for (const auto& [name, obey] : rules->rules()) {
    auto ops = predict::rule_ops(name);
    ASSERT_TRUE(ops.ok()) << name;
    auto calls = make_rule_calls(ops->first, ops->second, shape, {});
    ASSERT_TRUE(calls.ok()) << name << ": " << calls.error().message();
    EXPECT_EQ(calls->fused.output_shape, calls->consumer.output_shape) << name;
    EXPECT_EQ(calls->consumer.input_shape, calls->producer.output_shape) << name;
    EXPECT_TRUE(calls->producer.run().ok()) << name;
    EXPECT_TRUE(calls->consumer.run().ok()) << name;
    EXPECT_TRUE(calls->fused.run().ok()) << name;
  }
}

TEST(KernelCalls, ConcatDoublesTheChannelsTheNextConvReads) {
  RuleBlockShape shape;
  shape.hw = 5;
  shape.channels = 3;
  auto calls = make_rule_calls("concat", "conv", shape, {});
  ASSERT_TRUE(calls.ok()) << calls.error().message();
  EXPECT_EQ(calls->consumer.input_shape, (Shape{1, 6, 5, 5}));
  EXPECT_EQ(calls->fused.output_shape, (Shape{1, 3, 5, 5}));
}

TEST(KernelCalls, ABlockThatCannotBeBuiltNamesTheOp) {
  auto calls = make_rule_calls("fc", "conv", RuleBlockShape{}, {});
  ASSERT_FALSE(calls.ok());
  EXPECT_NE(calls.error().message().find("conv"), std::string::npos) << calls.error().message();
  auto unknown = make_rule_calls("conv", "lstm", RuleBlockShape{}, {});
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.error().message().find("lstm"), std::string::npos) << unknown.error().message();
}

}  // namespace
}  // namespace jouleprof::torch_adapter
