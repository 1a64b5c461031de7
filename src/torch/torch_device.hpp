// A DeviceKind as libtorch sees it: where tensors go, whether this libtorch can use it, and
// waiting for its queued work.
#pragma once

#include <torch/cuda.h>
#include <torch/torch.h>

#include <string_view>

#include "jouleprof/device_kind.hpp"
#include "jouleprof/result.hpp"

namespace jouleprof::torch_adapter {

inline ::torch::DeviceType torch_device_type(DeviceKind kind) {
  return kind == DeviceKind::kCuda ? ::torch::kCUDA : ::torch::kCPU;
}

// Fails (kUnavailable, naming `option`) for cuda when this libtorch has no usable CUDA device.
Status require_usable(DeviceKind kind, std::string_view option);

// Returns once the device has run everything queued, so that a call's energy falls inside its
// own measurement window.
inline void synchronize(DeviceKind kind) {
  if (kind == DeviceKind::kCuda) ::torch::cuda::synchronize();
}

}  // namespace jouleprof::torch_adapter
