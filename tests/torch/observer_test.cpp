#include <gtest/gtest.h>
#include <torch/torch.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "jouleprof/recorder.hpp"
#include "jouleprof/torch.hpp"

namespace jouleprof::torch_adapter {
namespace {

// net/fc1 (linear 3→5), net/act (relu), net/fc2 (linear 5→2).
class TinyNet : public torch::nn::Module {
 public:
  TinyNet()
      : fc1_(register_module("fc1", torch::nn::Linear(3, 5))),
        fc2_(register_module("fc2", torch::nn::Linear(5, 2))) {}

  torch::Tensor forward(const torch::Tensor& x) {
    LayerScope net(names_.net);
    torch::Tensor y;
    {
      LayerScope scope(names_.fc1);
      y = fc1_(x);
    }
    {
      LayerScope scope(names_.act);
      y = torch::relu(y);
    }
    LayerScope scope(names_.fc2);
    return fc2_(y);
  }

 private:
  struct Names {
    LayerName net = layer_name("net");
    LayerName fc1 = layer_name("fc1");
    LayerName act = layer_name("act");
    LayerName fc2 = layer_name("fc2");
  } names_;
  torch::nn::Linear fc1_, fc2_;
};

// Records f() with the observer on and returns the timeline.
template <typename F>
Timeline record(F&& f, ObserverOptions options = {}, std::vector<CapturedOp>* captured = nullptr) {
  Observer observer(options);
  Recorder::global().start();
  EXPECT_TRUE(observer.start().ok());
  f();
  observer.stop();
  Recorder::global().stop();
  if (captured) *captured = observer.captured_ops();
  return Recorder::global().collect();
}

// Names of the direct children of every span whose path is `parent_path`.
std::multiset<std::string> children_of(const Timeline& t, const std::string& parent_path) {
  std::multiset<std::string> names;
  for (std::uint32_t i = 0; i < t.spans().size(); ++i) {
    const Span& s = t.spans()[i];
    if (s.parent != kNoIndex && t.path_of(s.parent) == parent_path) names.insert(t.name(s.name));
  }
  return names;
}

// Every op name in the subtree of the spans whose path is `path`.
std::multiset<std::string> ops_under(const Timeline& t, const std::string& path) {
  std::multiset<std::string> names;
  for (std::uint32_t i = 0; i < t.spans().size(); ++i) {
    const std::string p = t.path_of(i);
    if (p.size() > path.size() && p.compare(0, path.size() + 1, path + "/") == 0 &&
        t.spans()[i].category == SpanCategory::kOp) {
      names.insert(t.name(t.spans()[i].name));
    }
  }
  return names;
}

std::string all_paths(const Timeline& t) {
  std::string text;
  for (std::uint32_t i = 0; i < t.spans().size(); ++i) text += t.path_of(i) + "\n";
  return text;
}

std::vector<std::uint32_t> spans_with_path(const Timeline& t, const std::string& path) {
  std::vector<std::uint32_t> found;
  for (std::uint32_t i = 0; i < t.spans().size(); ++i) {
    if (t.path_of(i) == path) found.push_back(i);
  }
  return found;
}

TEST(Observer, ForwardOpsNestUnderTheirLayerPaths) {
  torch::manual_seed(1);
  TinyNet net;
  const torch::Tensor x = torch::randn({4, 3});
  const Timeline t = record([&] {
    torch::NoGradGuard no_grad;
    PassScope forward(Pass::kForward);
    net.forward(x);
  });
  SCOPED_TRACE(all_paths(t));
  EXPECT_EQ(children_of(t, "forward"), (std::multiset<std::string>{"net"}));
  EXPECT_EQ(children_of(t, "forward/net"), (std::multiset<std::string>{"fc1", "act", "fc2"}));
  EXPECT_EQ(children_of(t, "forward/net/act"), (std::multiset<std::string>{"aten::relu"}));
  // A linear layer computes bias + input × weightᵀ in one aten::addmm (libtorch's C++ functional
  // calls it directly; newer versions go through aten::linear, which nests it).
  for (const char* layer : {"forward/net/fc1", "forward/net/fc2"}) {
    const auto ops = ops_under(t, layer);
    EXPECT_EQ(ops.count("aten::addmm"), 1u) << layer;
    EXPECT_EQ(ops.count("aten::t"), 1u) << layer;
    EXPECT_EQ(ops.count("aten::relu"), 0u) << layer;
  }

  for (std::uint32_t i = 0; i < t.spans().size(); ++i) {
    const Span& s = t.spans()[i];
    EXPECT_EQ(s.pass, Pass::kForward) << t.path_of(i);
    if (t.name(s.name).rfind("aten::", 0) == 0) {
      EXPECT_EQ(s.category, SpanCategory::kOp) << t.path_of(i);
    }
  }
  const auto fc1 = spans_with_path(t, "forward/net/fc1");
  ASSERT_EQ(fc1.size(), 1u);
  EXPECT_EQ(t.spans()[fc1[0]].category, SpanCategory::kLayer);
}

TEST(Observer, BackwardOpsAreChargedToTheLayerThatProducedThem) {
  torch::manual_seed(2);
  TinyNet net;
  const torch::Tensor x = torch::randn({4, 3});
  const Timeline t = record([&] {
    torch::Tensor loss;
    {
      PassScope forward(Pass::kForward);
      loss = net.forward(x).sum();
    }
    PassScope backward(Pass::kBackward);
    loss.backward();
  });
  SCOPED_TRACE(all_paths(t));
  // Each autograd node runs inside a span named after its forward layer's full path.
  EXPECT_EQ(children_of(t, "backward/net/fc1").count("AddmmBackward0"), 1u);
  EXPECT_EQ(children_of(t, "backward/net/fc2").count("AddmmBackward0"), 1u);
  EXPECT_EQ(children_of(t, "backward/net/act").count("ReluBackward0"), 1u);
  // AccumulateGrad (no sequence number) follows the node that produced its gradient: a layer's
  // weight and bias are accumulated under that layer, none directly under the backward pass.
  EXPECT_EQ(children_of(t, "backward/net/fc1").count("torch::autograd::AccumulateGrad"), 2u);
  EXPECT_EQ(children_of(t, "backward/net/fc2").count("torch::autograd::AccumulateGrad"), 2u);
  EXPECT_EQ(children_of(t, "backward").count("torch::autograd::AccumulateGrad"), 0u);
  // The aten ops a backward node runs nest under it, in the backward pass.
  const auto fc2_grad = spans_with_path(t, "backward/net/fc2/AddmmBackward0");
  ASSERT_EQ(fc2_grad.size(), 1u);
  const auto grad_ops = children_of(t, "backward/net/fc2/AddmmBackward0");
  EXPECT_GE(grad_ops.count("aten::mm"), 1u);
  for (std::uint32_t i = 0; i < t.spans().size(); ++i) {
    if (t.path_of(i).rfind("backward", 0) == 0) {
      EXPECT_EQ(t.spans()[i].pass, Pass::kBackward) << t.path_of(i);
    }
  }
  for (const char* layer : {"backward/net/fc1", "backward/net/fc2", "backward/net/act"}) {
    for (std::uint32_t i : spans_with_path(t, layer)) {
      EXPECT_EQ(t.spans()[i].category, SpanCategory::kLayer);
    }
  }
}

TEST(Observer, UserScopesFromLibtorchAreLayers) {
  const torch::Tensor x = torch::randn({2, 2});
  const Timeline t = record([&] {
    RECORD_USER_SCOPE("custom_block");
    torch::sigmoid(x);
  });
  EXPECT_EQ(children_of(t, "custom_block"), (std::multiset<std::string>{"aten::sigmoid"}));
  const auto block = spans_with_path(t, "custom_block");
  ASSERT_EQ(block.size(), 1u);
  EXPECT_EQ(t.spans()[block[0]].category, SpanCategory::kLayer);
}

TEST(Observer, RecordsNothingOnceStopped) {
  const torch::Tensor x = torch::randn({2, 2});
  Observer observer;
  Recorder::global().start();
  ASSERT_TRUE(observer.start().ok());
  observer.stop();
  torch::relu(x);
  Recorder::global().stop();
  EXPECT_TRUE(Recorder::global().collect().spans().empty());
}

TEST(Observer, OnlyOneRunsAtATime) {
  Observer first;
  Observer second;
  ASSERT_TRUE(first.start().ok());
  const Status status = second.start();
  EXPECT_FALSE(status.ok());
  first.stop();
  EXPECT_TRUE(second.start().ok());
}

TEST(Observer, CapturesShapesForReplay) {
  torch::manual_seed(3);
  TinyNet net;
  const torch::Tensor x = torch::randn({4, 3});
  std::vector<CapturedOp> ops;
  ObserverOptions options;
  options.record_shapes = true;
  const Timeline t = record(
      [&] {
        torch::NoGradGuard no_grad;
        net.forward(x);
        net.forward(x);
      },
      options, &ops);
  const auto addmm = std::find_if(ops.begin(), ops.end(), [](const CapturedOp& op) {
    return op.op_name == "aten::addmm" && op.signature == "f32[5], f32[4,3], f32[3,5], 1, 1";
  });
  ASSERT_NE(addmm, ops.end());
  EXPECT_EQ(addmm->calls, 2u);
  EXPECT_NE(addmm->args, nullptr);
  const auto relu = std::find_if(ops.begin(), ops.end(),
                                 [](const CapturedOp& op) { return op.op_name == "aten::relu"; });
  ASSERT_NE(relu, ops.end());
  EXPECT_EQ(relu->signature, "f32[4,5]");

  // The shapes are also on each op's span.
  int annotated_addmm = 0;
  for (const Span& s : t.spans()) {
    if (t.name(s.name) != "aten::addmm" || s.attributes == kNoIndex) continue;
    for (const auto& [key, value] : t.attributes()[s.attributes]) {
      if (key == "shapes" && value == "f32[5], f32[4,3], f32[3,5], 1, 1") ++annotated_addmm;
    }
  }
  EXPECT_EQ(annotated_addmm, 2);
}

}  // namespace
}  // namespace jouleprof::torch_adapter
