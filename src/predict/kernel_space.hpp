// The configuration spaces `jouleprof kernel-bench` samples kernels from, one per kernel type,
// and the seeded sampler. nn-Meter and DeepEn2023 build their kernel data sets the same way:
// sample configurations (input size, channels, kernel size, stride) of each kernel type, measure
// each one on the device, train a predictor per type on the measurements.
//
//   JP_TRY(auto spaces, default_kernel_spaces());                 // or read_kernel_spaces(file)
//   JP_TRY(auto kernels, sample_kernels(spaces.at("conv-bn-relu"), 40, /*seed=*/1));
//
// The defaults are jouleprof's choice (docs/predict.md, "kernel-bench"): ranges that cover the
// published data sets' shapes while keeping one measurement on a CPU to about a second.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "predict/kernel_features.hpp"
#include "predict/kernel_type.hpp"

namespace jouleprof::predict {

struct ChannelRange {
  int min = 1;
  int max = 1;  // inclusive
};

// Which configuration fields a kernel type has; the others are fixed (Cout = Cin for kernels
// that keep their channels, HW = 1 for fc).
struct KernelShapeFields {
  bool hw = true;
  bool cout = false;
  bool kernel = false;  // KERNEL_SIZE and STRIDES
};

struct KernelSpace {
  std::string type;               // a predictor type, e.g. "conv-bn-relu"
  std::vector<int> hw;            // input height = width, drawn uniformly from the list
  ChannelRange cin;               // drawn log-uniformly (small and large counts equally likely)
  ChannelRange cout;              // only for conv-bn-relu and fc
  std::vector<int> kernel_sizes;  // drawn uniformly; only for convs and pools
  std::vector<int> strides;       // drawn uniformly; only for convs and pools
  double max_mflops = 0.0;        // conv/dwconv/fc: redraw configurations above it; 0 = no cap
};

KernelShapeFields shape_fields(const std::string& type);

// One space per benchable type.
std::map<std::string, KernelSpace> default_kernel_spaces();

// The defaults with the overrides of a JSON file applied:
//   {"conv-bn-relu": {"HW": [7, 14, 28], "CIN": {"min": 16, "max": 256}, "COUT": {...},
//                     "KERNEL_SIZE": [1, 3], "STRIDES": [1, 2], "MAX_MFLOPS": 500}, ...}
// A type or field that does not exist, a field the type does not have, an empty list or a
// non-positive value fails with the file, the type, the field and the value.
Result<std::map<std::string, KernelSpace>> read_kernel_spaces(const std::filesystem::path& path);

// The spaces as the JSON that read_kernel_spaces reads (for `kernel-bench --show-space`).
std::string kernel_spaces_json(const std::map<std::string, KernelSpace>& spaces);

// `count` configurations drawn from the space with the given seed: the same space, count and
// seed give the same kernels on every platform. Each is named
// "<type>_<index>_<HW>_<CIN>_<COUT>_<KS>_<S>". Configurations above max_mflops, or whose kernel
// is larger than its padded input (HW + 2·((KS−1)/2) < KS), are redrawn; fails when the space
// has (almost) none other.
Result<std::vector<KernelConfig>> sample_kernels(const KernelSpace& space, std::size_t count,
                                                 std::uint64_t seed);

}  // namespace jouleprof::predict
