// Classes of GPU kernels by name (cuBLAS/CUTLASS GEMMs, fused attention, PyTorch's elementwise,
// norm, reduction and optimizer kernels), so that per-class power can be fitted or calibrated
// over a handful of classes rather than hundreds of template instantiations.
#pragma once

#include <string>
#include <string_view>

namespace jouleprof::attribution {

// "gemm", "attention_fwd", "attention_bwd", "gelu", "gelu_bwd", "layer_norm", "layer_norm_bwd",
// "dropout", "softmax", "reduce", "optimizer", "embedding", "loss", "memset", "memcpy",
// "elementwise", or "other".
std::string kernel_class_of(std::string_view kernel_name);

}  // namespace jouleprof::attribution
