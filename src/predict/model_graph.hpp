// A model's operator graph as read from ONNX or nn-Meter JSON, before kernel detection.
// Shapes are stored NHWC-normalised whatever the file's layout, so detection and features see
// one convention: a rank-4 NCHW [N, C, H, W] becomes n, h, w, c; rank-2 [N, C] keeps h = w = 1.
#pragma once

#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "jouleprof/result.hpp"

namespace jouleprof::predict {

enum class TensorLayout { kNchw, kNhwc };

// Parses "nchw"/"nhwc" (any case, also TensorFlow's "NCHW"/"NHWC" data_format values).
Result<TensorLayout> tensor_layout_from_string(std::string_view s);

struct TensorShape {
  int rank = 0;  // 0 = unknown
  std::int64_t n = 1, h = 1, w = 1, c = 0;
};

// Rank 4 dims in the given layout → NHWC fields; rank 2 [N, C]; rank 3 [N, L, C] (h = L).
TensorShape shape_from_dims(std::span<const std::int64_t> dims, TensorLayout layout);

// The largest tensor dimension a model file may give: what the kernel configurations' int CIN,
// COUT and HW hold (an nn-Meter shape of 1e18 became COUT -1486618624, then a total of 0 mJ).
inline constexpr std::int64_t kMaxTensorDim = std::numeric_limits<std::int32_t>::max();
// Each dimension from 0 to kMaxTensorDim, the first (the batch) also -1 (unknown); else an error
// naming `file`, `field` and the dimension.
Status check_dims(std::span<const std::int64_t> dims, std::string_view file,
                  std::string_view field);

struct GraphNode {
  std::string name;
  std::string op_type;                    // as written in the file: "Conv", "Conv2D", "Relu6" …
  std::vector<std::string> inputs;        // producing nodes' names (data inputs; weights excluded)
  std::vector<TensorShape> input_shapes;  // one per data input, in input order
  TensorShape output_shape;
  int kernel_size = 0;  // spatial kernel size (height) for conv and pool nodes, else 0
  int stride = 0;       // stride (height) for conv and pool nodes, else 0
  int groups = 1;       // convolution groups: groups == input channels means depthwise
};

struct ModelGraph {
  std::string name;
  std::vector<GraphNode> nodes;  // any order; detection sorts them
};

}  // namespace jouleprof::predict
