// Reading a model graph and detecting its kernels must be linear in its nodes (issue 30, class 6:
// a chain of 32 000 Relu nodes took 16 s, 100 000 more than 120 s). A chain of N Relu nodes after
// a convolution, as an nn-Meter JSON graph; the fusion rules fold the chain into the convolution's
// kernel, the deepest case of the detector's walk.
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <filesystem>
#include <fstream>

#include "relu_chain_load.hpp"

namespace jouleprof::predict {
namespace {

std::filesystem::path relu_chain(std::size_t n) {
  const std::filesystem::path path =
      std::filesystem::temp_directory_path() / fmt::format("jouleprof-relu-chain-{}.json", n);
  std::ofstream out(path);
  out << R"({"input": {"inbounds": [], "attr": {"type": "Conv2D", "input_shape": [[1, 32, 32, 3]],)"
      << R"( "output_shape": [[1, 32, 32, 16]], "attr": {"kernel_shape": [3, 3],)"
      << R"( "strides": [1, 1], "data_format": "NHWC", "group": 1}}, "outbounds": ["relu_0"]})";
  for (std::size_t i = 0; i < n; ++i) {
    const std::string previous = i == 0 ? "input" : fmt::format("relu_{}", i - 1);
    const std::string next = i + 1 < n ? fmt::format(R"(["relu_{}"])", i + 1) : "[]";
    out << fmt::format(
        R"(, "relu_{}": {{"inbounds": ["{}"], "attr": {{"type": "Relu", "input_shape":)"
        R"( [[1, 32, 32, 16]], "output_shape": [[1, 32, 32, 16]], "attr": {{}}}}, "outbounds": {}}})",
        i, previous, next);
  }
  out << "}\n";
  return path;
}

void BM_LoadReluChain(benchmark::State& state) { load_relu_chain(state, relu_chain); }
BENCHMARK(BM_LoadReluChain)->Apply(relu_chain_sizes);

}  // namespace
}  // namespace jouleprof::predict

BENCHMARK_MAIN();
