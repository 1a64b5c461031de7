// The replayable form of one observed operator call: the operator's name, tensor arguments as
// shape + dtype + device, and every other argument by value. Filled by the observer when shapes
// are recorded, turned back into a dispatcher stack by the calibration's replay.
#pragma once

#include <ATen/core/ivalue.h>
#include <ATen/core/operator_name.h>

#include <string>
#include <variant>
#include <vector>

namespace jouleprof::torch_adapter {

struct TensorSpec {
  bool defined = false;
  std::vector<std::int64_t> sizes;
  c10::ScalarType dtype = c10::ScalarType::Float;
  c10::Device device = c10::Device(c10::DeviceType::CPU);
};

using TensorListSpec = std::vector<TensorSpec>;

// A tensor, a list of tensors, or a plain value (int, double, bool, int list, string, None …).
using ArgSpec = std::variant<TensorSpec, TensorListSpec, c10::IValue>;

// Defines the type that include/jouleprof/torch.hpp declares opaquely.
struct ReplayArgs {
  c10::OperatorName op{"", ""};
  std::vector<ArgSpec> args;
};

}  // namespace jouleprof::torch_adapter
