// Kernel configurations and the feature vectors DeepEn2023's predictors read (METHODS.md §4).
//
// A kernel is what a device runs as one unit after fusion, e.g. conv+bn+relu. Its configuration
// (input size, channels, kernel size, stride) comes from a model graph, a MobileNet variant file
// or a kernel dataset; features_of() turns it into the feature vector of its predictor type.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "jouleprof/result.hpp"

namespace jouleprof::predict {

// One detected or measured kernel. `op` keeps the fused operator name as found
// ("conv-bn-relu6", "add-relu"); predictor_type(op) says which predictor serves it.
struct KernelConfig {
  std::string name;  // node or layer name, or the dataset's kernel id
  std::string op;
  int hw = 0;  // input height (= width for the square inputs of the data sets)
  int cin = 0;
  int cout = 0;
  int kernel_size = 0;
  int stride = 0;
  std::vector<int> input_channels;  // per input, for add (2) and concat (up to 4)
};

// The predictor kinds of METHODS.md §4; each fixes the features, in order.
enum class FeatureSet {
  kConv,    // HW, Cin, Cout, KS, S, FLOPs/2e6, Params/1e6
  kDwconv,  // HW, Cin, Cout, KS, S, FLOPs/2e6, Params/1e6 (depthwise formulas)
  kFc,      // Cin, Cout, F/2e6, F/1e6
  kPool,    // HW, Cin, Cout, KS, S
  kAdd,     // HW, Cin1, Cin2
  kConcat,  // HW, C1, C2, C3, C4 (zero-padded)
  kOthers,  // HW, Cin
};

// The predictor a fused operator uses: every conv variant (conv, conv-bn, conv-relu6,
// conv-hswish, conv-block …) maps to "conv-bn-relu", dwconv variants to "dwconv-bn-relu", fc
// variants to "fc", "global-pool"/"gap" to "global-avgpool"; other names map to themselves.
std::string predictor_type(std::string_view op);

// The feature set of a predictor type (types not in the paper's list use kOthers).
FeatureSet feature_set_of(std::string_view predictor_type);
std::vector<std::string> feature_names(FeatureSet set);

// Params = Cout·(KS²·Cin + 1), FLOPs = 2·(HW/S)²·Params (HW/S is a real division, as nn-Meter).
double conv_params(const KernelConfig& k);
double conv_flops(const KernelConfig& k);
// Params = Cout·(KS² + 1), FLOPs = 2·(HW/S)²·Params.
double dwconv_params(const KernelConfig& k);
double dwconv_flops(const KernelConfig& k);
// F = (2·Cin + 1)·Cout.
double fc_flops(const KernelConfig& k);

// FLOPs of a kernel for the FLOPs-linear baseline; nullopt for types without a FLOPs formula.
std::optional<double> kernel_flops(const KernelConfig& k);
// Parameters of a kernel for the log-linear baseline (fc: (Cin + 1)·Cout); nullopt for types
// without a FLOPs formula.
std::optional<double> kernel_params(const KernelConfig& k);

// The feature vector for the kernel's predictor type. Fails when a field the features need is
// missing (zero) or negative, naming the kernel and the field.
Result<std::vector<double>> features_of(const KernelConfig& k);

}  // namespace jouleprof::predict
