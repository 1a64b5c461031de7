// The measurement the graph readers' benchmarks share: loading a model file that holds a
// convolution followed by a chain of N Relu nodes (written by each benchmark in its own format),
// at 2 000 to 100 000 nodes, the sizes of issue 30's class 6.
#pragma once

#include <benchmark/benchmark.h>

#include <cstdint>
#include <filesystem>

#include "predict/json_graph_import.hpp"

namespace jouleprof::predict {

// Loads the file `write_chain(N)` writes, N = state.range(0), once per iteration; one item per
// node. The file is removed afterwards.
inline void load_relu_chain(benchmark::State& state,
                            std::filesystem::path (*write_chain)(std::size_t)) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const std::filesystem::path path = write_chain(n);
  for (auto _ : state) {
    auto models = load_model_kernels(path, ModelLoadOptions{});
    if (!models) state.SkipWithError(models.error().message().c_str());
    benchmark::DoNotOptimize(models);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) *
                          static_cast<std::int64_t>(n + 1));
  std::filesystem::remove(path);
}

inline void relu_chain_sizes(benchmark::internal::Benchmark* b) {
  b->Arg(2000)->Arg(8000)->Arg(32000)->Arg(100000)->Unit(benchmark::kMillisecond);
}

}  // namespace jouleprof::predict
