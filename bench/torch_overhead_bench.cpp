// Overhead of observing a libtorch training step, side by side in one run: wall time per step of
// bert-mini and resnet-18 on the CPU (a) unobserved, (b) with jouleprof's observer recording every
// op into the recorder, (c) with libtorch's own (legacy CPU) profiler recording the same ops.
// Targets: (b) within 3 % of (a); (b)'s overhead at most half of (c)'s.
//
// The three modes alternate step by step (a, b, c, a, b, c …), so that a machine whose load drifts
// shifts all three alike; the counters are medians over the steps. Recorded spans and profiler
// events are collected and dropped between steps, outside the timed region.
#include <algorithm>
#include <vector>

#include <benchmark/benchmark.h>
#include <torch/csrc/autograd/profiler_legacy.h>
#include <torch/torch.h>

#include "jouleprof/recorder.hpp"
#include "jouleprof/torch.hpp"

namespace {

namespace jt = jouleprof::torch_adapter;
namespace profiler = torch::autograd::profiler;
using torch::profiler::impl::ProfilerConfig;
using torch::profiler::impl::ProfilerState;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

double time_step_ms(jt::Workload& w) {
  const jouleprof::TimeNs begin = jouleprof::monotonic_now_ns();
  w.step();
  return static_cast<double>(jouleprof::monotonic_now_ns() - begin) * 1e-6;
}

void observed_step_overhead(benchmark::State& state, jt::WorkloadOptions options) {
  auto workload = jt::make_workload(options);
  if (!workload.ok()) {
    state.SkipWithError(workload.error().message().c_str());
    return;
  }
  jt::Workload& w = **workload;
  for (int i = 0; i < 2; ++i) w.step();  // warm-up: allocations, kernel selection

  std::vector<double> plain_ms, jouleprof_ms, torch_profiler_ms;
  jt::Observer observer;
  for (auto _ : state) {
    plain_ms.push_back(time_step_ms(w));

    jouleprof::Recorder::global().start();
    if (!observer.start().ok()) {
      state.SkipWithError("observer already running");
      return;
    }
    jouleprof_ms.push_back(time_step_ms(w));
    observer.stop();
    jouleprof::Recorder::global().stop();
    benchmark::DoNotOptimize(jouleprof::Recorder::global().collect());

    profiler::enableProfilerLegacy(ProfilerConfig(ProfilerState::CPU));
    torch_profiler_ms.push_back(time_step_ms(w));
    benchmark::DoNotOptimize(profiler::disableProfilerLegacy());

    state.SetIterationTime((plain_ms.back() + jouleprof_ms.back() + torch_profiler_ms.back()) * 1e-3);
  }
  const double a = median(plain_ms), b = median(jouleprof_ms), c = median(torch_profiler_ms);
  state.counters["plain_ms"] = a;
  state.counters["jouleprof_ms"] = b;
  state.counters["torch_profiler_ms"] = c;
  state.counters["jouleprof_overhead_pct"] = 100.0 * (b - a) / a;
  state.counters["torch_profiler_overhead_pct"] = 100.0 * (c - a) / a;
  state.SetLabel(w.description());
}

jt::WorkloadOptions bert_mini() {
  jt::WorkloadOptions o;
  o.model = "bert-mini";
  o.mode = jt::Mode::kTrain;
  o.batch = 8;
  o.seq = 128;
  return o;
}

jt::WorkloadOptions resnet18() {
  jt::WorkloadOptions o;
  o.model = "resnet-18";
  o.mode = jt::Mode::kTrain;
  o.batch = 4;
  o.image = 112;
  return o;
}

BENCHMARK_CAPTURE(observed_step_overhead, bert_mini_train, bert_mini())
    ->UseManualTime()->Iterations(20)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(observed_step_overhead, resnet18_train, resnet18())
    ->UseManualTime()->Iterations(10)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
