// Kernel detection (nn-Meter's method, METHODS.md §4): turns a model graph into the kernels a
// device runs, in four steps:
//   1. normalise op types (Conv/Conv2D → conv, a Conv with groups = input channels → dwconv,
//      BatchNormalization → bn, Relu/Relu6/Clip → relu, Gemm/MatMul → fc, GlobalAveragePool →
//      gap …) and drop constants;
//   2. fuse multi-op blocks: se (gap → … → sigmoid/hsigmoid, multiplied back onto the block's
//      input), hswish (x·hsigmoid(x), or x·relu6(x + 3)/6), channelshuffle (reshape → transpose
//      → reshape);
//   3. drop the configured no-ops (identity, dropout, reshape, flatten, squeeze, unsqueeze,
//      shape, placeholder) by connecting their consumers to their input;
//   4. fuse producer→consumer pairs the device's rules allow (BF_<last op of the producer
//      kernel>_<consumer op>) when the producer has one consumer and the consumer one input,
//      repeatedly, so conv → bn → relu becomes one conv-bn-relu kernel.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "predict/fusion_rules.hpp"
#include "predict/kernel_features.hpp"
#include "predict/model_graph.hpp"

namespace jouleprof::predict {

struct DetectionOptions {
  FusionRules rules;
  // Ops removed in step 3 (normalised names). Reshape is a no-op on the paper's devices; remove
  // it from the set for a device where it costs a copy.
  std::set<std::string> no_op_types{"identity",  "reshape", "flatten",    "squeeze",
                                    "unsqueeze", "shape",   "placeholder"};
  // How many ops may lie between an se block's gap and its final multiplication.
  int max_se_chain = 8;
};

struct DetectedKernel {
  KernelConfig config;               // op = the fused name, e.g. "conv-bn-relu"
  std::vector<std::string> members;  // the graph nodes it covers, in order
};

// The normalised op type of one node (step 1), before fusion.
std::string normalise_op_type(const GraphNode& node);

// Steps 1–4. Fails on a cycle, or when a node the kernels need lacks a shape.
Result<std::vector<DetectedKernel>> detect_kernels(const ModelGraph& graph,
                                                   const DetectionOptions& options);

}  // namespace jouleprof::predict
