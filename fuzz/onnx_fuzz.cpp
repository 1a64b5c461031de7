// ONNX models (protobuf), read by `predict --model`: parsing, shape inference, kernel detection.
#include <cstdint>

#include "fuzz_input.hpp"
#include "predict/json_graph_import.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  (void)jouleprof::predict::load_model_kernels(
      jouleprof::fuzz::input_file(data, size, "model.onnx"),
      jouleprof::predict::ModelLoadOptions{});
  return 0;
}
