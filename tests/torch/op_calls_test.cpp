#include <gtest/gtest.h>

#include "jouleprof/torch_ops.hpp"

namespace jouleprof::torch_adapter {
namespace {

TEST(OpCalls, EveryOpRunsAtASmallSize) {
  for (const char* op : {"matmul", "conv2d", "linear", "layer_norm", "softmax", "embedding",
                         "sgd-step", "train-step:mlp"}) {
    const Result<OpCall> call = make_op_call(op, 8, "cpu", 1);
    ASSERT_TRUE(call) << op << ": " << call.error().message();
    EXPECT_GT(call->input_elements, 0.0) << op;
    EXPECT_FALSE(call->description.empty()) << op;
    const Status st = call->run();
    EXPECT_TRUE(st) << op << ": " << st.error().message();
  }
}

TEST(OpCalls, InputSizeGrowsWithSize) {
  const Result<OpCall> small = make_op_call("matmul", 16, "cpu");
  const Result<OpCall> large = make_op_call("matmul", 64, "cpu");
  ASSERT_TRUE(small && large);
  EXPECT_DOUBLE_EQ(small->input_elements, 2.0 * 16 * 16);
  EXPECT_DOUBLE_EQ(large->input_elements, 2.0 * 64 * 64);
}

TEST(OpCalls, BadRequestsAreClearErrors) {
  const Result<OpCall> unknown = make_op_call("fft", 8, "cpu");
  ASSERT_FALSE(unknown);
  EXPECT_NE(unknown.error().message().find("known: matmul"), std::string::npos);
  EXPECT_FALSE(make_op_call("matmul", 0, "cpu"));
  EXPECT_FALSE(make_op_call("matmul", 8, "tpu"));
  EXPECT_FALSE(make_op_call("train-step:no-such-model", 2, "cpu"));
}

}  // namespace
}  // namespace jouleprof::torch_adapter
