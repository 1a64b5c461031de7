// DeepEn2023's kernels as libtorch inference calls, for `jouleprof kernel-bench` and
// `jouleprof detect-rules`. This header does not include torch.
//
// Each kernel is written as a TorchScript module (weights and inputs seeded), frozen and optimised
// for inference — libtorch's deployment path (torch::jit::freeze + optimize_for_inference), which
// folds batch-norm into a preceding convolution and, where oneDNN is built in, fuses convolution
// with its activation — so a kernel runs the way this machine runs it inside a deployed model.
//
//   JP_TRY(KernelCall call, make_kernel_call(config, {.device = DeviceKind::kCpu}));
//   JP_TRY(KernelEnergy e, predict::measure_kernel_call(call.run, bench_options));
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "jouleprof/device_kind.hpp"
#include "jouleprof/gated_measurement.hpp"
#include "predict/kernel_features.hpp"

namespace jouleprof::torch_adapter {

struct KernelCallOptions {
  DeviceKind device = DeviceKind::kCpu;
  int threads = 1;         // libtorch intra-op threads; 0: libtorch's default
  std::uint64_t seed = 0;  // weights and inputs
};

struct KernelCall {
  std::string description;                // the block, in words, with its input shape
  std::vector<std::int64_t> input_shape;  // NCHW (N×C for fc), batch 1
  std::vector<std::int64_t> output_shape;
  MeasuredCall run;  // one inference call, waiting for the device to finish
};

// The kernel types make_kernel_call builds: predict::benchable_kernel_types().
// Convolutions and pools pad by (KS−1)/2 ("same" for odd kernels), so the output is
// ceil(HW/S) square for convolutions; se squeezes to max(C/4, 1) channels; channelshuffle uses
// two groups. Fails for another type or a configuration libtorch rejects, naming the kernel.
Result<KernelCall> make_kernel_call(const predict::KernelConfig& kernel,
                                    const KernelCallOptions& options);

// The block shape detect-rules measures each rule on: 1×C×HW×HW (1×C into fc), convolutions and
// pools KS×KS with stride 1, so every op keeps the shape.
struct RuleBlockShape {
  int hw = 28;
  int channels = 64;
  int kernel_size = 3;
};

// The ops a fusion rule may name: conv, dwconv, bn, relu, hswish, fc, add, maxpool, avgpool,
// concat.
const std::vector<std::string>& rule_block_ops();

struct RuleCalls {
  KernelCall producer;  // op a alone
  KernelCall consumer;  // op b alone, on an input of a's output shape
  KernelCall fused;     // a → b compiled as one block
};

Result<RuleCalls> make_rule_calls(const std::string& producer_op, const std::string& consumer_op,
                                  const RuleBlockShape& shape, const KernelCallOptions& options);

}  // namespace jouleprof::torch_adapter
