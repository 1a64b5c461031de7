// Single libtorch API calls to measure one at a time (`jouleprof measure --op`): FECoM's
// question — how does a call's energy grow with its input size? — asked of PyTorch's C++ API.
//
//   JP_TRY(OpCall call, make_op_call("matmul", 512, DeviceKind::kCpu));   // a 512×512 @ 512×512
//   product JP_TRY(GatedResult r, measure_gated(monitor, call.run, options));
//
// This header does not include torch.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "jouleprof/device_kind.hpp"
#include "jouleprof/gated_measurement.hpp"
#include "jouleprof/result.hpp"

namespace jouleprof::torch_adapter {

struct OpCall {
  std::string op;
  std::int64_t size = 0;
  std::string description;      // what one call computes, with shapes
  double input_elements = 0.0;  // the "input size" FECoM correlates energy with
  MeasuredCall run;             // one call, waiting for the device to finish
};

// The ops `measure --op` knows: matmul, conv2d, linear, layer_norm, softmax, embedding,
// sgd-step (an optimizer step over a size×size linear layer) and train-step:<zoo model> (size =
// batch).
std::vector<std::string> measurable_ops();

// Builds the inputs (seeded) once; the returned call reuses them.
Result<OpCall> make_op_call(const std::string& op, std::int64_t size, DeviceKind device,
                            std::uint64_t seed = 0);

}  // namespace jouleprof::torch_adapter
