#include "predict/kernel_space.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>

#include "core/json_brief.hpp"
#include "core/text_file.hpp"

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

Result<std::vector<int>> positive_list(const std::string& where, const std::string& field,
                                       const json& value) {
  if (!value.is_array() || value.empty()) {
    return invalid_input(where, field, json_brief(value),
                         "expected a non-empty list of positive integers");
  }
  std::vector<int> out;
  for (const json& v : value) {
    if (!v.is_number_integer() || v.get<long long>() <= 0 || v.get<long long>() > 1'000'000) {
      return invalid_input(where, field, json_brief(v), "expected a positive integer");
    }
    out.push_back(v.get<int>());
  }
  return out;
}

Result<ChannelRange> channel_range(const std::string& where, const std::string& field,
                                   const json& value) {
  auto bound = [&](const char* key) -> Result<int> {
    auto it = value.is_object() ? value.find(key) : value.end();
    if (it == value.end())
      return invalid_input(where, field, json_brief(value), R"(expected {"min": N, "max": M})");
    if (!it->is_number_integer() || it->get<long long>() <= 0 || it->get<long long>() > 1'000'000) {
      return invalid_input(where, field + "." + key, it->dump(), "expected a positive integer");
    }
    return it->get<int>();
  };
  JP_TRY(int lo, bound("min"));
  JP_TRY(int hi, bound("max"));
  if (hi < lo) return invalid_input(where, field, json_brief(value), "max is below min");
  for (const auto& [key, unused] : value.items()) {
    if (key != "min" && key != "max")
      return invalid_input(where, field + "." + key, "", "unknown key (min, max)");
  }
  return ChannelRange{lo, hi};
}

Status apply_overrides(const std::string& file, const std::string& type, const json& fields,
                       KernelSpace& space) {
  const std::string where = file + ": " + type;
  if (!fields.is_object())
    return invalid_input(where, "space", json_brief(fields), "expected an object of fields");
  const KernelShapeFields has = shape_fields(type);
  for (const auto& item : fields.items()) {
    // Named references, not a structured binding: clang 14 cannot capture one in a lambda.
    const std::string& field = item.key();
    const json& value = item.value();
    auto not_for_type = [&] {
      return invalid_input(where, field, json_brief(value),
                           fmt::format("a {} kernel has no such field", type));
    };
    if (field == "HW") {
      if (!has.hw) return not_for_type();
      JP_TRY(space.hw, positive_list(where, field, value));
    } else if (field == "CIN") {
      JP_TRY(space.cin, channel_range(where, field, value));
    } else if (field == "COUT") {
      if (!has.cout) return not_for_type();
      JP_TRY(space.cout, channel_range(where, field, value));
    } else if (field == "KERNEL_SIZE") {
      if (!has.kernel) return not_for_type();
      JP_TRY(space.kernel_sizes, positive_list(where, field, value));
    } else if (field == "STRIDES") {
      if (!has.kernel) return not_for_type();
      JP_TRY(space.strides, positive_list(where, field, value));
    } else if (field == "MAX_MFLOPS") {
      if (!has_flops_cap(type)) return not_for_type();
      if (!value.is_number() || value.get<double>() < 0.0) {
        return invalid_input(where, field, json_brief(value),
                             "expected a non-negative number (0: no cap)");
      }
      space.max_mflops = value.get<double>();
    } else {
      return invalid_input(where, field, json_brief(value),
                           "unknown field (HW, CIN, COUT, KERNEL_SIZE, STRIDES, MAX_MFLOPS)");
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
  if (space.type == "channelshuffle" && k.cin % 2 != 0) ++k.cin;
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

const std::vector<std::string>& benchable_kernel_types() {
  static const std::vector<std::string> kTypes{
      "conv-bn-relu",   "dwconv-bn-relu", "fc",  "maxpool",  "avgpool", "bn",
      "relu",           "bn-relu",        "add", "add-relu", "hswish",  "se",
      "channelshuffle", "global-avgpool"};
  return kTypes;
}

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
  spaces["conv-bn-relu"] =
      space_of("conv-bn-relu", kConvHw, {3, 1024}, {8, 1024}, {1, 3, 5, 7}, {1, 2}, 500);
  spaces["dwconv-bn-relu"] =
      space_of("dwconv-bn-relu", kConvHw, {8, 1024}, unused, {3, 5, 7}, {1, 2}, 100);
  spaces["fc"] = space_of("fc", {}, {16, 4096}, {10, 4096}, {}, {}, 100);
  for (const char* pool : {"maxpool", "avgpool"}) {
    spaces[pool] = space_of(pool, {7, 14, 28, 56, 112, 224}, {8, 512}, unused, {2, 3}, {1, 2}, 0);
  }
  for (const char* type : {"bn", "relu", "bn-relu", "add", "add-relu", "hswish", "se",
                           "channelshuffle", "global-avgpool"}) {
    spaces[type] = space_of(type, kElementwiseHw, {8, 1024}, unused, {}, {}, 0);
  }
  return spaces;
}

Result<std::map<std::string, KernelSpace>> read_kernel_spaces(const std::filesystem::path& path) {
  JP_TRY(const std::string text, read_text_file(path.string(), "kernel space file"));
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::exception& e) {
    return invalid_input(path.string(), "JSON", "", e.what());
  }
  if (!doc.is_object())
    return invalid_input(path.string(), "top level", json_brief(doc),
                         "expected an object of kernel types");
  auto spaces = default_kernel_spaces();
  for (const auto& [type, fields] : doc.items()) {
    auto space = spaces.find(type);
    if (space == spaces.end()) {
      return invalid_input(path.string(), "kernel type", type,
                           fmt::format("not a kernel type kernel-bench measures ({})",
                                       fmt::join(benchable_kernel_types(), ", ")));
    }
    JP_RETURN_IF_ERROR(apply_overrides(path.string(), type, fields, space->second));
  }
  return spaces;
}

std::string kernel_spaces_json(const std::map<std::string, KernelSpace>& spaces) {
  json doc = json::object();
  for (const std::string& type : benchable_kernel_types()) {
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
