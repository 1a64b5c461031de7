// JSON model inputs:
//   - nn-Meter IR graphs: {"<node>": {"inbounds": [...], "attr": {"type": "Conv2D",
//     "input_shape": [[1,224,224,3]], "output_shape": [[...]], "attr": {"kernel_shape",
//     "strides", "data_format", "group"}}, "outbounds": [...]}}, or an object of such graphs keyed
//     by model name;
//   - kernel lists such as ../shared/data/deepen2023/models/mobilenetv1-variants.json:
//     {"<model>": {"<layer>": {"op", "cin", "cout", "ks", "stride", "inputh", "inputw"}}}, or a
//     single model's {"<layer>": {...}}. These are already kernels and skip detection.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "predict/kernel_detector.hpp"
#include "predict/model_graph.hpp"

namespace jouleprof::predict {

// One model as kernels, whatever file it came from.
struct ModelKernels {
  std::string name;
  std::string format;  // "onnx", "nn-meter-graph", "kernel-list"
  std::vector<DetectedKernel> kernels;
};

// nn-Meter graphs: a node's shapes follow its attr.data_format when it has one, else
// `default_layout` (nn-Meter's TensorFlow IR is NHWC).
Result<std::vector<ModelGraph>> import_nnmeter_graphs(const std::filesystem::path& path,
                                                      TensorLayout default_layout);

struct ModelLoadOptions {
  DetectionOptions detection;
  std::optional<TensorLayout> layout;  // unset: NCHW for ONNX, NHWC for nn-Meter graphs
};

// Reads .onnx (ONNX) or .json (either JSON form above) and returns each model's kernels.
Result<std::vector<ModelKernels>> load_model_kernels(const std::filesystem::path& path,
                                                     const ModelLoadOptions& options);

}  // namespace jouleprof::predict
