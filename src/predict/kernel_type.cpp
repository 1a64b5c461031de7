#include "predict/kernel_type.hpp"

#include <fmt/format.h>

#include <array>
#include <vector>

namespace jouleprof::predict {
namespace {

// Index = the enum's value.
constexpr std::array<std::string_view, 15> kKernelTypeNames{
    "conv-bn-relu",   "dwconv-bn-relu", "fc",    "maxpool",  "avgpool", "bn",
    "relu",           "bn-relu",        "add",   "add-relu", "hswish",  "se",
    "channelshuffle", "global-avgpool", "concat"};

constexpr std::array<KernelType, 14> kBenchable{
    KernelType::kConvBnRelu,     KernelType::kDwconvBnRelu, KernelType::kFc,
    KernelType::kMaxpool,        KernelType::kAvgpool,      KernelType::kBn,
    KernelType::kRelu,           KernelType::kBnRelu,       KernelType::kAdd,
    KernelType::kAddRelu,        KernelType::kHswish,       KernelType::kSe,
    KernelType::kChannelShuffle, KernelType::kGlobalAvgpool};

}  // namespace

std::string_view to_string(KernelType type) {
  return kKernelTypeNames.at(static_cast<std::size_t>(type));
}

std::optional<KernelType> kernel_type_from_string(std::string_view name) {
  for (std::size_t i = 0; i < kKernelTypeNames.size(); ++i) {
    if (kKernelTypeNames[i] == name) return static_cast<KernelType>(i);
  }
  return std::nullopt;
}

std::span<const KernelType> benchable_kernel_types() { return kBenchable; }

std::string benchable_kernel_type_list() {
  std::vector<std::string_view> names;
  for (const KernelType type : kBenchable) names.push_back(to_string(type));
  return fmt::format("{}", fmt::join(names, ", "));
}

}  // namespace jouleprof::predict
