// Import rate of a large generated PyTorch-profiler (Kineto) trace. Target: at least 100 MB/s of
// JSON text (issue #3). bytes_per_second is per CPU second of the importing thread (kernel time
// for page faults included); MB_per_wall_s divides by the wall time, which a loaded machine
// stretches. The generated trace has the event mix of the real H200 BERT trace: nested
// CPU ops, runtime launches with ac2g flows, kernels and memsets with correlation ids.
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "jouleprof/trace_import.hpp"

namespace jouleprof {
namespace {

// One training-step-like block of events per iteration; ~1.9 KB of text.
void append_block(std::string& out, std::int64_t i, double& ts_us) {
  const std::int64_t correlation = 2 * i + 1;
  const double t0 = ts_us;
  fmt::format_to(
      std::back_inserter(out),
      R"JSON(  {{"ph": "X", "cat": "cpu_op", "name": "aten::linear", "pid": 544, "tid": 544, "ts": {:.3f}, "dur": 40.125, "args": {{"External id": {}, "Record function id": 0, "Sequence number": {}, "Fwd thread id": 0, "Ev Idx": {}}}}},
  {{"ph": "X", "cat": "cpu_op", "name": "aten::t", "pid": 544, "tid": 544, "ts": {:.3f}, "dur": 3.250, "args": {{"External id": {}, "Record function id": 0, "Ev Idx": {}}}}},
  {{"ph": "X", "cat": "cpu_op", "name": "aten::addmm", "pid": 544, "tid": 544, "ts": {:.3f}, "dur": 30.500, "args": {{"External id": {}, "Record function id": 0, "Ev Idx": {}}}}},
  {{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 544, "tid": 544, "ts": {:.3f}, "dur": 6.211, "args": {{"cbid": 211, "correlation": {}}}}},
  {{"ph": "s", "id": {}, "pid": 544, "tid": 544, "ts": {:.3f}, "cat": "ac2g", "name": "ac2g"}},
  {{"ph": "X", "cat": "cuda_runtime", "name": "cudaMemsetAsync", "pid": 544, "tid": 544, "ts": {:.3f}, "dur": 4.020, "args": {{"cbid": 51, "correlation": {}}}}},
  {{"ph": "s", "id": {}, "pid": 544, "tid": 544, "ts": {:.3f}, "cat": "ac2g", "name": "ac2g"}},
  {{"ph": "X", "cat": "kernel", "name": "sm90_xmma_gemm_f32f32_tf32f32_f32_tn_n_tilesize128x256x32_warpgroupsize2x1x1_execute_segment_k_off_kernel__5x_cublas", "pid": 0, "tid": 7, "ts": {:.3f}, "dur": 52.384, "args": {{"External id": {}, "queued": 0, "device": 0, "context": 1, "stream": 7, "correlation": {}, "registers per thread": 168, "shared memory": 213248, "blocks per SM": 0.984848, "warps per SM": 11.818182, "grid": [130, 1, 1], "block": [384, 1, 1], "est. achieved occupancy %": 19}}}},
  {{"ph": "f", "id": {}, "pid": 0, "tid": 7, "ts": {:.3f}, "cat": "ac2g", "name": "ac2g", "bp": "e"}},
  {{"ph": "X", "cat": "gpu_memset", "name": "Memset (Device)", "pid": 0, "tid": 7, "ts": {:.3f}, "dur": 1.184, "args": {{"External id": {}, "device": 0, "context": 1, "stream": 7, "correlation": {}, "bytes": 8, "memory bandwidth (GB/s)": 0.006756756756756757}}}},
  {{"ph": "f", "id": {}, "pid": 0, "tid": 7, "ts": {:.3f}, "cat": "ac2g", "name": "ac2g", "bp": "e"}},
)JSON",
      t0, 3 * i, i, 5 * i, t0 + 2.0, 3 * i + 1, 5 * i + 1, t0 + 6.0, 3 * i + 2, 5 * i + 2,
      t0 + 10.0, correlation, correlation, t0 + 10.0, t0 + 20.0, correlation + 1, correlation + 1,
      t0 + 20.0, t0 + 30.0, 3 * i + 2, correlation, correlation, t0 + 30.0, t0 + 83.0, 3 * i + 2,
      correlation + 1, correlation + 1, t0 + 83.0);
  ts_us += 100.0;
}

std::string generate_trace(std::size_t target_bytes) {
  std::string out;
  out.reserve(target_bytes + 4096);
  out += R"({
  "schemaVersion": 1,
  "deviceProperties": [{"id": 0, "name": "NVIDIA H200", "totalGlobalMem": 150109880320}],
  "displayTimeUnit": "ms",
  "baseTimeNanoseconds": 1790857026000000000,
  "traceEvents": [
)";
  double ts_us = 5132481649229.954;
  for (std::int64_t i = 0; out.size() < target_bytes; ++i) append_block(out, i, ts_us);
  out +=
      R"(  {"name": "process_name", "ph": "M", "ts": 5132481634677.801, "pid": 544, "tid": 0, "args": {"name": "python3"}},
  {"name": "thread_name", "ph": "M", "ts": 5132481634677.801, "pid": 0, "tid": 7, "args": {"name": "stream 7 "}}
  ],
  "traceName": "generated.json"
}
)";
  return out;
}

void BM_ImportKinetoTrace(benchmark::State& state) {
  const auto bytes = static_cast<std::size_t>(state.range(0)) << 20;
  const auto path =
      std::filesystem::temp_directory_path() / fmt::format("jouleprof-import-bench-{}.json", bytes);
  const std::string text = generate_trace(bytes);
  std::ofstream(path, std::ios::binary)
      .write(text.data(), static_cast<std::streamsize>(text.size()));
  std::size_t spans = 0;
  const auto wall_start = std::chrono::steady_clock::now();
  for (auto _ : state) {
    auto imported = import_trace(
        path.string(), TraceImportOptions{ClockAnchor{0, 0}, std::nullopt, TraceClock::kAuto});
    if (!imported.ok()) {
      state.SkipWithError(imported.error().message().c_str());
      break;
    }
    spans = imported->timeline.spans().size();
    benchmark::DoNotOptimize(spans);
  }
  const double wall_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  std::filesystem::remove(path);
  state.counters["MB_per_wall_s"] =
      static_cast<double>(state.iterations()) * static_cast<double>(text.size()) / 1e6 / wall_s;
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) *
                          static_cast<std::int64_t>(text.size()));
  state.counters["spans"] = static_cast<double>(spans);
  state.counters["MB"] = static_cast<double>(text.size()) / 1e6;
}
BENCHMARK(BM_ImportKinetoTrace)->Arg(256)->Unit(benchmark::kMillisecond)->Iterations(3);

}  // namespace
}  // namespace jouleprof

BENCHMARK_MAIN();
