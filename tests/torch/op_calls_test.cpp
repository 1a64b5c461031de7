#include <gtest/gtest.h>

#include "jouleprof/torch.hpp"
#include "jouleprof/torch_ops.hpp"

namespace jouleprof::torch_adapter {
namespace {

TEST(OpCalls, EveryOpRunsAtASmallSize) {
  for (const char* op : {"matmul", "conv2d", "linear", "layer_norm", "softmax", "embedding",
                         "sgd-step", "train-step:mlp"}) {
    const Result<OpCall> call = make_op_call(op, 8, DeviceKind::kCpu, 1);
    ASSERT_TRUE(call) << op << ": " << call.error().message();
    EXPECT_GT(call->input_elements, 0.0) << op;
    EXPECT_FALSE(call->description.empty()) << op;
    const Status st = call->run();
    EXPECT_TRUE(st) << op << ": " << st.error().message();
  }
}

TEST(OpCalls, InputSizeGrowsWithSize) {
  const Result<OpCall> small = make_op_call("matmul", 16, DeviceKind::kCpu);
  const Result<OpCall> large = make_op_call("matmul", 64, DeviceKind::kCpu);
  ASSERT_TRUE(small && large);
  EXPECT_DOUBLE_EQ(small->input_elements, 2.0 * 16 * 16);
  EXPECT_DOUBLE_EQ(large->input_elements, 2.0 * 64 * 64);
}

TEST(OpCalls, BadRequestsAreClearErrors) {
  const Result<OpCall> unknown = make_op_call("fft", 8, DeviceKind::kCpu);
  ASSERT_FALSE(unknown);
  EXPECT_NE(unknown.error().message().find("known: matmul"), std::string::npos);
  EXPECT_FALSE(make_op_call("matmul", 0, DeviceKind::kCpu));
  EXPECT_FALSE(make_op_call("train-step:no-such-model", 2, DeviceKind::kCpu));
}

TEST(OpCalls, CudaWithoutACudaDeviceIsUnavailable) {
  if (cuda_available()) GTEST_SKIP() << "this libtorch has a CUDA device";
  const Result<OpCall> call = make_op_call("matmul", 8, DeviceKind::kCuda);
  ASSERT_FALSE(call);
  EXPECT_EQ(call.error().code(), ErrorCode::kUnavailable);
  EXPECT_NE(call.error().message().find("OpCall device cuda"), std::string::npos);
}

}  // namespace
}  // namespace jouleprof::torch_adapter
