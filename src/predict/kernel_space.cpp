#include "predict/kernel_space.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>

#include "core/json_fields.hpp"
#include "core/json_file.hpp"
#include "predict/kernel_type.hpp"

namespace jouleprof::predict {
namespace {

using nlohmann::json;

// Redraws allowed per kernel before a space whose cap excludes (nearly) everything is an error.
constexpr int kMaxDrawsPerKernel = 10000;

// SplitMix64: a fixed generator and our own draws (not <random>'s distributions, whose results
// differ between standard libraries), so a seed names the same kernels everywhere.
class SeededDraws {
 public:
  explicit SeededDraws(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  double unit() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }  // [0, 1)
  int pick(const std::vector<int>& choices) { return choices[next() % choices.size()]; }
  int log_uniform(ChannelRange r) {
    const double lo = std::log(static_cast<double>(r.min));
    const double hi = std::log(static_cast<double>(r.max) + 1.0);
    const int v = static_cast<int>(std::floor(std::exp(lo + unit() * (hi - lo))));
    return std::clamp(v, r.min, r.max);
  }

 private:
  std::uint64_t state_;
};

const std::vector<int> kConvHw{1, 3, 7, 14, 28, 56, 112, 224};
const std::vector<int> kElementwiseHw{1, 3, 7, 14, 28, 56, 112};

KernelSpace space_of(std::string type, std::vector<int> hw, ChannelRange cin, ChannelRange cout,
                     std::vector<int> kernel_sizes, std::vector<int> strides, double max_mflops) {
  KernelSpace s;
  s.type = std::move(type);
  s.hw = std::move(hw);
  s.cin = cin;
  s.cout = cout;
  s.kernel_sizes = std::move(kernel_sizes);
  s.strides = std::move(strides);
  s.max_mflops = max_mflops;
  return s;
}

bool has_flops_cap(const std::string& type) {
  const FeatureSet set = feature_set_of(type);
  return set == FeatureSet::kConv || set == FeatureSet::kDwconv || set == FeatureSet::kFc;
}

// Sizes and channel counts: positive, and small enough that their products stay in range.
bool is_dimension(int v) { return v > 0 && v <= 1'000'000; }
constexpr std::string_view kNotDimension = "is not a positive integer";

Result<std::vector<int>> positive_list(const JsonFields& f, const std::string& where,
                                       const json& value) {
  JP_TRY(const json* list, f.array(value, where));
  if (list->empty()) return f.bad_value(where, value, "is empty");
  std::vector<int> out;
  for (std::size_t i = 0; i < list->size(); ++i) {
    JP_TRY(const int v, f.value<int>((*list)[i], [&] { return fmt::format("{}[{}]", where, i); },
                                     is_dimension, kNotDimension));
    out.push_back(v);
  }
  return out;
}

Result<ChannelRange> channel_range(const JsonFields& f, const std::string& where,
                                   const json& value) {
  JP_RETURN_IF_ERROR(f.known_keys(value, where, {"min", "max"}));
  JP_TRY(const int lo, f.get<int>(value, "min", where, is_dimension, kNotDimension));
  JP_TRY(const int hi, f.get<int>(value, "max", where, is_dimension, kNotDimension));
  if (hi < lo) return f.bad_value(where, value, "max is below min");
  return ChannelRange{lo, hi};
}

Status apply_overrides(const JsonFields& f, const std::string& type, const json& fields,
                       KernelSpace& space) {
  JP_RETURN_IF_ERROR(
      f.known_keys(fields, type, {"HW", "CIN", "COUT", "KERNEL_SIZE", "STRIDES", "MAX_MFLOPS"}));
  const KernelShapeFields has = shape_fields(type);
  for (const auto& item : fields.items()) {
    // Named references, not a structured binding: clang 14 cannot capture one in a lambda.
    const std::string& field = item.key();
    const json& value = item.value();
    const std::string where = JsonFields::child(type, field);
    auto not_for_type = [&] {
      return f.bad_value(where, value, fmt::format("is not a field of a {} kernel", type));
    };
    if (field == "HW") {
      if (!has.hw) return not_for_type();
      JP_TRY(space.hw, positive_list(f, where, value));
    } else if (field == "CIN") {
      JP_TRY(space.cin, channel_range(f, where, value));
    } else if (field == "COUT") {
      if (!has.cout) return not_for_type();
      JP_TRY(space.cout, channel_range(f, where, value));
    } else if (field == "KERNEL_SIZE") {
      if (!has.kernel) return not_for_type();
      JP_TRY(space.kernel_sizes, positive_list(f, where, value));
    } else if (field == "STRIDES") {
      if (!has.kernel) return not_for_type();
      JP_TRY(space.strides, positive_list(f, where, value));
    } else {  // MAX_MFLOPS, the last of the known keys
      if (!has_flops_cap(type)) return not_for_type();
      JP_TRY(space.max_mflops, f.value<double>(
                                   value, where, [](double cap) { return cap >= 0.0; },
                                   "is not a non-negative number (0: no cap)"));
    }
  }
  return Status::Ok();
}

KernelConfig draw(const KernelSpace& space, SeededDraws& draws) {
  const KernelShapeFields has = shape_fields(space.type);
  KernelConfig k;
  k.op = space.type;
  k.hw = has.hw ? draws.pick(space.hw) : 1;
  k.cin = draws.log_uniform(space.cin);
  // Channel shuffle splits the channels into two groups.
  if (kernel_type_from_string(space.type) == KernelType::kChannelShuffle && k.cin % 2 != 0) ++k.cin;
  k.cout = has.cout ? draws.log_uniform(space.cout) : k.cin;
  if (has.kernel) {
    k.kernel_size = draws.pick(space.kernel_sizes);
    k.stride = draws.pick(space.strides);
  } else {
    k.kernel_size = 1;
    k.stride = 1;
  }
  if (feature_set_of(space.type) == FeatureSet::kAdd) k.input_channels = {k.cin, k.cin};
  return k;
}

// Convolutions and pools pad by (KS − 1)/2, so an input smaller than an even kernel would have
// no output.
bool has_output(const KernelConfig& k) {
  return k.kernel_size <= k.hw + 2 * ((k.kernel_size - 1) / 2);
}

bool under_cap(const KernelSpace& space, const KernelConfig& k) {
  const std::optional<double> flops = kernel_flops(k);
  return space.max_mflops <= 0.0 || !flops || *flops / 1e6 <= space.max_mflops;
}

}  // namespace

KernelShapeFields shape_fields(const std::string& type) {
  switch (feature_set_of(type)) {
    case FeatureSet::kConv:
      return {.hw = true, .cout = true, .kernel = true};
    case FeatureSet::kDwconv:
    case FeatureSet::kPool:
      return {.hw = true, .cout = false, .kernel = true};
    case FeatureSet::kFc:
      return {.hw = false, .cout = true, .kernel = false};
    default:
      return {.hw = true, .cout = false, .kernel = false};
  }
}

std::map<std::string, KernelSpace> default_kernel_spaces() {
  std::map<std::string, KernelSpace> spaces;
  // Channel ranges of kernels that keep their channels are stored in CIN; COUT is then unused.
  const ChannelRange unused{1, 1};
  const auto name = [](KernelType type) { return std::string(to_string(type)); };
  for (const KernelType type : benchable_kernel_types()) {
    switch (type) {
      case KernelType::kConvBnRelu:
        spaces[name(type)] =
            space_of(name(type), kConvHw, {3, 1024}, {8, 1024}, {1, 3, 5, 7}, {1, 2}, 500);
        break;
      case KernelType::kDwconvBnRelu:
        spaces[name(type)] =
            space_of(name(type), kConvHw, {8, 1024}, unused, {3, 5, 7}, {1, 2}, 100);
        break;
      case KernelType::kFc:
        spaces[name(type)] = space_of(name(type), {}, {16, 4096}, {10, 4096}, {}, {}, 100);
        break;
      case KernelType::kMaxpool:
      case KernelType::kAvgpool:
        spaces[name(type)] =
            space_of(name(type), {7, 14, 28, 56, 112, 224}, {8, 512}, unused, {2, 3}, {1, 2}, 0);
        break;
      case KernelType::kBn:
      case KernelType::kRelu:
      case KernelType::kBnRelu:
      case KernelType::kAdd:
      case KernelType::kAddRelu:
      case KernelType::kHswish:
      case KernelType::kSe:
      case KernelType::kChannelShuffle:
      case KernelType::kGlobalAvgpool:
      case KernelType::kConcat:
        spaces[name(type)] = space_of(name(type), kElementwiseHw, {8, 1024}, unused, {}, {}, 0);
        break;
    }
  }
  return spaces;
}

Result<std::map<std::string, KernelSpace>> read_kernel_spaces(const std::filesystem::path& path) {
  JP_TRY(const json doc, read_json_file(path.string(), "kernel space file"));
  const std::string file = path.string();
  const JsonFields f(file);
  JP_TRY(const json* types, f.object(doc, "(document)"));
  auto spaces = default_kernel_spaces();
  for (const auto& [type, fields] : types->items()) {
    auto space = spaces.find(type);
    if (space == spaces.end()) {
      return f.error(type, fmt::format("is not a kernel type kernel-bench measures ({})",
                                       benchable_kernel_type_list()));
    }
    JP_RETURN_IF_ERROR(apply_overrides(f, type, fields, space->second));
  }
  return spaces;
}

std::string kernel_spaces_json(const std::map<std::string, KernelSpace>& spaces) {
  json doc = json::object();
  for (const KernelType known : benchable_kernel_types()) {
    const std::string type(to_string(known));
    auto it = spaces.find(type);
    if (it == spaces.end()) continue;
    const KernelSpace& s = it->second;
    const KernelShapeFields has = shape_fields(type);
    json fields = json::object();
    if (has.hw) fields["HW"] = s.hw;
    fields["CIN"] = {{"min", s.cin.min}, {"max", s.cin.max}};
    if (has.cout) fields["COUT"] = {{"min", s.cout.min}, {"max", s.cout.max}};
    if (has.kernel) {
      fields["KERNEL_SIZE"] = s.kernel_sizes;
      fields["STRIDES"] = s.strides;
    }
    if (has_flops_cap(type)) fields["MAX_MFLOPS"] = s.max_mflops;
    doc[type] = std::move(fields);
  }
  return doc.dump(2);
}

Result<std::vector<KernelConfig>> sample_kernels(const KernelSpace& space, std::size_t count,
                                                 std::uint64_t seed) {
  SeededDraws draws(seed);
  std::vector<KernelConfig> kernels;
  for (std::size_t i = 0; i < count; ++i) {
    KernelConfig k;
    for (int attempt = 0;; ++attempt) {
      if (attempt == kMaxDrawsPerKernel) {
        return invalid_input(
            space.type, "MAX_MFLOPS, HW, KERNEL_SIZE", fmt::format("{}", space.max_mflops),
            fmt::format("no configuration below the FLOPs cap and with a non-empty output "
                        "found in {} draws",
                        attempt));
      }
      k = draw(space, draws);
      if (under_cap(space, k) && has_output(k)) break;
    }
    k.name = fmt::format("{}_{}_{}_{}_{}_{}_{}", space.type, i, k.hw, k.cin, k.cout, k.kernel_size,
                         k.stride);
    kernels.push_back(std::move(k));
  }
  return kernels;
}

}  // namespace jouleprof::predict
