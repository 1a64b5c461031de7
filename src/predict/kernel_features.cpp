#include "predict/kernel_features.hpp"

#include <fmt/format.h>

#include "predict/kernel_type.hpp"

namespace jouleprof::predict {
namespace {

// METHODS.md divides FLOPs by 2e6 and Params by 1e6 so the features are in millions of MACs and
// millions of parameters, the units nn-Meter's predictors were trained with.
constexpr double kFlopsFeatureScale = 2e6;
constexpr double kParamsFeatureScale = 1e6;
// The fc features are F/2e6 and F/1e6 (METHODS.md's table): the same count in two scalings.
constexpr double kFcFlopsHalfScale = 2e6;
constexpr double kFcFlopsScale = 1e6;
// Concat features carry the channels of up to four inputs, zero-padded.
constexpr std::size_t kConcatInputs = 4;

Error missing_field(const KernelConfig& k, std::string_view field, int value) {
  return invalid_input(k.name.empty() ? std::string("kernel") : "kernel '" + k.name + "'", field,
                       std::to_string(value),
                       fmt::format("must be positive for a {} kernel", k.op));
}

Status require_positive(const KernelConfig& k, std::string_view field, int value) {
  if (value <= 0) return missing_field(k, field, value);
  return Status::Ok();
}

double spatial_scale(const KernelConfig& k) {
  const double out_hw = static_cast<double>(k.hw) / static_cast<double>(k.stride);
  return out_hw * out_hw;
}

}  // namespace

std::string predictor_type(std::string_view op) {
  // By the whole first word of the fused name: "conv-bn-relu6" is a conv, "convtranspose" not.
  const std::string_view first = op.substr(0, op.find('-'));
  std::optional<KernelType> type;
  if (first == "dwconv") type = KernelType::kDwconvBnRelu;
  if (first == "conv") type = KernelType::kConvBnRelu;
  if (first == "fc") type = KernelType::kFc;
  if (op == "global-pool" || op == "gap") type = KernelType::kGlobalAvgpool;
  return std::string(type ? to_string(*type) : op);
}

FeatureSet feature_set_of(std::string_view predictor_type) {
  const std::optional<KernelType> type = kernel_type_from_string(predictor_type);
  if (!type) return FeatureSet::kOthers;
  switch (*type) {
    case KernelType::kConvBnRelu:
      return FeatureSet::kConv;
    case KernelType::kDwconvBnRelu:
      return FeatureSet::kDwconv;
    case KernelType::kFc:
      return FeatureSet::kFc;
    case KernelType::kMaxpool:
    case KernelType::kAvgpool:
      return FeatureSet::kPool;
    case KernelType::kAdd:
    case KernelType::kAddRelu:
      return FeatureSet::kAdd;
    case KernelType::kConcat:
      return FeatureSet::kConcat;
    case KernelType::kBn:
    case KernelType::kRelu:
    case KernelType::kBnRelu:
    case KernelType::kHswish:
    case KernelType::kSe:
    case KernelType::kChannelShuffle:
    case KernelType::kGlobalAvgpool:
      return FeatureSet::kOthers;
  }
  return FeatureSet::kOthers;
}

std::vector<std::string> feature_names(FeatureSet set) {
  switch (set) {
    case FeatureSet::kConv:
    case FeatureSet::kDwconv:
      return {"HW", "CIN", "COUT", "KERNEL_SIZE", "STRIDES", "FLOPS/2e6", "PARAMS/1e6"};
    case FeatureSet::kFc:
      return {"CIN", "COUT", "FLOPS/2e6", "FLOPS/1e6"};
    case FeatureSet::kPool:
      return {"HW", "CIN", "COUT", "KERNEL_SIZE", "STRIDES"};
    case FeatureSet::kAdd:
      return {"HW", "CIN1", "CIN2"};
    case FeatureSet::kConcat:
      return {"HW", "CIN1", "CIN2", "CIN3", "CIN4"};
    case FeatureSet::kOthers:
      return {"HW", "CIN"};
  }
  return {};
}

double conv_params(const KernelConfig& k) {
  return k.cout * (static_cast<double>(k.kernel_size) * k.kernel_size * k.cin + 1.0);
}
double conv_flops(const KernelConfig& k) { return 2.0 * spatial_scale(k) * conv_params(k); }
double dwconv_params(const KernelConfig& k) {
  return k.cout * (static_cast<double>(k.kernel_size) * k.kernel_size + 1.0);
}
double dwconv_flops(const KernelConfig& k) { return 2.0 * spatial_scale(k) * dwconv_params(k); }
double fc_flops(const KernelConfig& k) { return (2.0 * k.cin + 1.0) * k.cout; }

std::optional<double> kernel_flops(const KernelConfig& k) {
  switch (feature_set_of(predictor_type(k.op))) {
    case FeatureSet::kConv:
      return conv_flops(k);
    case FeatureSet::kDwconv:
      return dwconv_flops(k);
    case FeatureSet::kFc:
      return fc_flops(k);
    default:
      return std::nullopt;
  }
}

std::optional<double> kernel_params(const KernelConfig& k) {
  switch (feature_set_of(predictor_type(k.op))) {
    case FeatureSet::kConv:
      return conv_params(k);
    case FeatureSet::kDwconv:
      return dwconv_params(k);
    case FeatureSet::kFc:
      return (k.cin + 1.0) * k.cout;
    default:
      return std::nullopt;
  }
}

Result<std::vector<double>> features_of(const KernelConfig& k) {
  const FeatureSet set = feature_set_of(predictor_type(k.op));
  auto conv_like = [&](double params, double flops) -> Result<std::vector<double>> {
    JP_RETURN_IF_ERROR(require_positive(k, "HW", k.hw));
    JP_RETURN_IF_ERROR(require_positive(k, "CIN", k.cin));
    JP_RETURN_IF_ERROR(require_positive(k, "COUT", k.cout));
    JP_RETURN_IF_ERROR(require_positive(k, "KERNEL_SIZE", k.kernel_size));
    JP_RETURN_IF_ERROR(require_positive(k, "STRIDES", k.stride));
    return std::vector<double>{double(k.hw),
                               double(k.cin),
                               double(k.cout),
                               double(k.kernel_size),
                               double(k.stride),
                               flops / kFlopsFeatureScale,
                               params / kParamsFeatureScale};
  };
  switch (set) {
    case FeatureSet::kConv:
      if (k.stride <= 0) return missing_field(k, "STRIDES", k.stride);  // before dividing by it
      return conv_like(conv_params(k), conv_flops(k));
    case FeatureSet::kDwconv:
      if (k.stride <= 0) return missing_field(k, "STRIDES", k.stride);
      return conv_like(dwconv_params(k), dwconv_flops(k));
    case FeatureSet::kFc: {
      JP_RETURN_IF_ERROR(require_positive(k, "CIN", k.cin));
      JP_RETURN_IF_ERROR(require_positive(k, "COUT", k.cout));
      const double f = fc_flops(k);
      return std::vector<double>{double(k.cin), double(k.cout), f / kFcFlopsHalfScale,
                                 f / kFcFlopsScale};
    }
    case FeatureSet::kPool:
      JP_RETURN_IF_ERROR(require_positive(k, "HW", k.hw));
      JP_RETURN_IF_ERROR(require_positive(k, "CIN", k.cin));
      JP_RETURN_IF_ERROR(require_positive(k, "COUT", k.cout));
      JP_RETURN_IF_ERROR(require_positive(k, "KERNEL_SIZE", k.kernel_size));
      JP_RETURN_IF_ERROR(require_positive(k, "STRIDES", k.stride));
      return std::vector<double>{double(k.hw), double(k.cin), double(k.cout), double(k.kernel_size),
                                 double(k.stride)};
    case FeatureSet::kAdd: {
      JP_RETURN_IF_ERROR(require_positive(k, "HW", k.hw));
      if (k.input_channels.size() != 2) {
        return invalid_input("kernel '" + k.name + "'", "CIN1/CIN2",
                             std::to_string(k.input_channels.size()) + " inputs",
                             "an add kernel needs exactly two input channel counts");
      }
      JP_RETURN_IF_ERROR(require_positive(k, "CIN1", k.input_channels[0]));
      JP_RETURN_IF_ERROR(require_positive(k, "CIN2", k.input_channels[1]));
      return std::vector<double>{double(k.hw), double(k.input_channels[0]),
                                 double(k.input_channels[1])};
    }
    case FeatureSet::kConcat: {
      JP_RETURN_IF_ERROR(require_positive(k, "HW", k.hw));
      if (k.input_channels.empty() || k.input_channels.size() > kConcatInputs) {
        return invalid_input("kernel '" + k.name + "'", "CIN1..CIN4",
                             std::to_string(k.input_channels.size()) + " inputs",
                             "a concat kernel's features cover 1 to 4 inputs");
      }
      std::vector<double> f{double(k.hw), 0.0, 0.0, 0.0, 0.0};
      for (std::size_t i = 0; i < k.input_channels.size(); ++i) f[i + 1] = k.input_channels[i];
      return f;
    }
    case FeatureSet::kOthers:
      JP_RETURN_IF_ERROR(require_positive(k, "HW", k.hw));
      JP_RETURN_IF_ERROR(require_positive(k, "CIN", k.cin));
      return std::vector<double>{double(k.hw), double(k.cin)};
  }
  return Error(ErrorCode::kInternal, "unknown feature set");
}

}  // namespace jouleprof::predict
