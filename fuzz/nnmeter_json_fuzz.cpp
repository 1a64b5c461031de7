// nn-Meter model graph JSON (and jouleprof's own graph JSON), read by `predict --model`: the
// import, then kernel detection as predict runs it.
#include <cstdint>

#include "fuzz_input.hpp"
#include "predict/json_graph_import.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  (void)jouleprof::predict::load_model_kernels(
      jouleprof::fuzz::input_file(data, size, "model.json"),
      jouleprof::predict::ModelLoadOptions{});
  return 0;
}
