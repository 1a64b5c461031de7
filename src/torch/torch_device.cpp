#include "torch/torch_device.hpp"

#include <fmt/format.h>

#include "jouleprof/torch.hpp"

namespace jouleprof::torch_adapter {

Status require_usable(DeviceKind kind, std::string_view option) {
  if (kind == DeviceKind::kCuda && !cuda_available()) {
    return Error(ErrorCode::kUnavailable,
                 fmt::format("{} cuda: this libtorch has no usable CUDA device (CPU build or no "
                             "GPU)",
                             option));
  }
  return Status::Ok();
}

}  // namespace jouleprof::torch_adapter
