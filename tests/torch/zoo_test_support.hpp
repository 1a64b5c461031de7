// Shared check of the zoo tests: one observed training step of a workload.
#pragma once

#include <gtest/gtest.h>

#include "jouleprof/recorder.hpp"
#include "jouleprof/torch.hpp"

namespace jouleprof::torch_adapter {

// Builds the workload, records one training step with the observer and checks the step has its
// three passes, forward ops under layers and backward ops charged to layers.
inline void expect_observed_training_step(const WorkloadOptions& options) {
  auto workload = make_workload(options);
  ASSERT_TRUE(workload.ok()) << workload.error().message();
  Observer observer;
  Recorder::global().start();
  ASSERT_TRUE(observer.start().ok());
  (*workload)->step();
  observer.stop();
  Recorder::global().stop();
  const Timeline t = Recorder::global().collect();
  int passes = 0, forward_layer_ops = 0, backward_layer_ops = 0;
  for (std::uint32_t i = 0; i < t.spans().size(); ++i) {
    const Span& s = t.spans()[i];
    const std::string& name = t.name(s.name);
    if (name == "forward" || name == "backward" || name == "optimizer") ++passes;
    if (s.category != SpanCategory::kOp || s.parent == kNoIndex) continue;
    const Span& parent = t.spans()[s.parent];
    if (parent.category != SpanCategory::kLayer) continue;
    if (s.pass == Pass::kForward) ++forward_layer_ops;
    if (s.pass == Pass::kBackward) ++backward_layer_ops;
  }
  EXPECT_EQ(passes, 3) << options.model;
  EXPECT_GT(forward_layer_ops, 0) << options.model;
  EXPECT_GT(backward_layer_ops, 0) << options.model;
  EXPECT_EQ(Recorder::global().dropped(), 0u);
}

}  // namespace jouleprof::torch_adapter
