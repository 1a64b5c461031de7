// ONNX model import (built when JOULEPROF_WITH_ONNX is on: JOULEPROF_HAS_ONNX is defined).
// Runs ONNX's own shape inference (with data propagation) and fails, naming the node and the
// tensor, when a shape the kernels need is still unknown afterwards — e.g. a model whose inputs
// have symbolic spatial sizes. An unknown batch dimension is read as 1.
#pragma once

#include <filesystem>

#include "predict/model_graph.hpp"

namespace jouleprof::predict {

// ONNX convolutions are NCHW; kNhwc is for graphs converted with transposes folded away.
Result<ModelGraph> import_onnx(const std::filesystem::path& path,
                               TensorLayout layout = TensorLayout::kNchw);

// Whether this build can read ONNX at all.
bool onnx_import_available();

}  // namespace jouleprof::predict
