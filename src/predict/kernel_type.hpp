// The kernel types jouleprof knows by name: the predictor types of METHODS.md §4 and the
// elementwise kernels kernel-bench builds. Code that acts on a type switches on KernelType; a
// predictor bundle or kernel dataset may name a type outside this list, which keeps its name, gets
// the kOthers features (kernel_features.hpp) and is served by its own predictor like any other.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace jouleprof::predict {

enum class KernelType : std::uint8_t {
  kConvBnRelu,
  kDwconvBnRelu,
  kFc,
  kMaxpool,
  kAvgpool,
  kBn,
  kRelu,
  kBnRelu,
  kAdd,
  kAddRelu,
  kHswish,
  kSe,
  kChannelShuffle,
  kGlobalAvgpool,
  kConcat,
};

// "conv-bn-relu", "dwconv-bn-relu", "fc", …, "global-avgpool", "concat".
std::string_view to_string(KernelType type);
std::optional<KernelType> kernel_type_from_string(std::string_view name);

// The types kernel-bench builds and measures, in a fixed order: every type but concat, whose
// inputs come from several producers.
std::span<const KernelType> benchable_kernel_types();
// Their names, comma-separated, for messages that list them.
std::string benchable_kernel_type_list();

}  // namespace jouleprof::predict
