#include "predict/model_graph.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

namespace jouleprof::predict {

Result<TensorLayout> tensor_layout_from_string(std::string_view s) {
  std::string lower(s);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
  if (lower == "nchw") return TensorLayout::kNchw;
  if (lower == "nhwc") return TensorLayout::kNhwc;
  return invalid_input("layout", "layout", std::string(s), "expected nchw or nhwc");
}

TensorShape shape_from_dims(std::span<const std::int64_t> dims, TensorLayout layout) {
  TensorShape s;
  s.rank = static_cast<int>(dims.size());
  if (dims.size() == 4) {
    s.n = dims[0];
    if (layout == TensorLayout::kNchw) {
      s.c = dims[1], s.h = dims[2], s.w = dims[3];
    } else {
      s.h = dims[1], s.w = dims[2], s.c = dims[3];
    }
  } else if (dims.size() == 3) {
    s.n = dims[0], s.h = dims[1], s.c = dims[2];
  } else if (dims.size() == 2) {
    s.n = dims[0], s.c = dims[1];
  } else if (dims.size() == 1) {
    s.c = dims[0];
  }
  return s;
}

Status check_dims(std::span<const std::int64_t> dims, std::string_view file,
                  std::string_view field) {
  for (std::size_t i = 0; i < dims.size(); ++i) {
    const std::int64_t lowest = i == 0 ? -1 : 0;
    if (dims[i] < lowest || dims[i] > kMaxTensorDim) {
      return invalid_input(
          file, fmt::format("{}[{}]", field, i), fmt::format("{}", dims[i]),
          fmt::format("is not a tensor dimension (from {} to {})", lowest, kMaxTensorDim));
    }
  }
  return Status::Ok();
}

}  // namespace jouleprof::predict
