#include "attribution/kernel_classes.hpp"

#include <array>
#include <utility>

namespace jouleprof::attribution {

std::string kernel_class_of(std::string_view name) {
  // First match wins: the more specific substrings come before the generic ones.
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 26> kRules{{
      {"Memset", "memset"},
      {"Memcpy", "memcpy"},
      {"fmha_cutlassB", "attention_bwd"},
      {"fmha_cutlassF", "attention_fwd"},
      {"AttentionBackward", "attention_bwd"},
      {"gemm", "gemm"},
      {"splitKreduce", "gemm"},
      {"cublasLt::epilogue", "gemm"},
      {"scal_kernel", "gemm"},
      {"GeluBackward", "gelu_bwd"},
      {"Gelu", "gelu"},
      {"GammaBetaBackward", "layer_norm_bwd"},
      {"layer_norm_grad", "layer_norm_bwd"},
      {"layer_norm", "layer_norm"},
      {"dropout", "dropout"},
      {"softmax", "softmax"},
      {"multi_tensor_apply", "optimizer"},
      {"nll_loss", "loss"},
      {"embedding", "embedding"},
      {"grad_weight", "embedding"},
      {"segment", "embedding"},
      {"sum_and_scatter", "embedding"},
      {"gather", "embedding"},
      {"cub::", "embedding"},
      {"reduce_kernel", "reduce"},
      {"elementwise", "elementwise"},
  }};
  for (const auto& [needle, klass] : kRules) {
    if (name.find(needle) != std::string_view::npos) return std::string(klass);
  }
  return "other";
}

}  // namespace jouleprof::attribution
