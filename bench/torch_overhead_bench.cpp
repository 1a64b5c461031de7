// Overhead of observing a libtorch training step: wall time per step of bert-mini and resnet-18 on
// the CPU (a) unobserved, (b) with jouleprof's observer recording every op into the recorder, (c)
// with libtorch's own (legacy CPU) profiler recording the same ops.
// Targets: (b) within 3 % of (a); (b)'s overhead at most half of (c)'s.
//
// Built for a shared, noisy machine: libtorch runs one intra-op and one inter-op thread (the
// machine's other load then slows all three modes alike instead of stealing threads from one),
// each mode warms up first, and every round runs a, b and c once each, in an order rotated from
// round to round, so drift and position in the round hit all three alike. The overhead of a round
// is its b / a − 1 (c / a − 1): paired, so that load changing between rounds cancels. Reported:
// median step times, and per overhead the median over rounds and the Student-t 95 % confidence
// interval of the mean. Starting, stopping and collecting a recording happen outside the timed
// step, as they do once per profile, not per step.
//
// Each step is timed twice: wall time (the target's measure) and the process's CPU time. With one
// libtorch thread (and OPENBLAS_NUM_THREADS=1 / OMP_NUM_THREADS=1 in the environment) a step's
// CPU time is its wall time minus the time other processes held the CPU, so on a shared machine
// the CPU-time overhead is the precise figure and the wall-time one its noisy confirmation.
#include <benchmark/benchmark.h>
#include <torch/csrc/autograd/profiler_legacy.h>
#include <torch/torch.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <ctime>
#include <string>
#include <vector>

#include "jouleprof/profile.hpp"
#include "jouleprof/recorder.hpp"
#include "jouleprof/statistics.hpp"
#include "jouleprof/torch.hpp"

namespace {

namespace jt = jouleprof::torch_adapter;
namespace profiler = torch::autograd::profiler;
using torch::profiler::impl::ProfilerConfig;
using torch::profiler::impl::ProfilerState;

enum Mode { kPlain = 0, kJouleprof = 1, kTorchProfiler = 2 };

struct StepTime {
  double wall_ms = -1.0;
  double cpu_ms = -1.0;
  std::size_t spans = 0;  // recorded in the step (b)
};

double process_cpu_ms() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) * 1e-6;
}

StepTime time_step(jt::Workload& w) {
  const double cpu_begin = process_cpu_ms();
  const jouleprof::TimeNs begin = jouleprof::monotonic_now_ns();
  w.step();
  const jouleprof::TimeNs end = jouleprof::monotonic_now_ns();
  return {static_cast<double>(end - begin) * 1e-6, process_cpu_ms() - cpu_begin};
}

// One step in `mode`, timed; the recording is set up before and torn down after the timed step.
StepTime observed_step(jt::Workload& w, Mode mode, jt::Observer& observer) {
  switch (mode) {
    case kPlain:
      return time_step(w);
    case kJouleprof: {
      jouleprof::Recorder::global().start();
      if (!observer.start().ok()) return {};
      StepTime ms = time_step(w);
      observer.stop();
      jouleprof::Recorder::global().stop();
      ms.spans = jouleprof::Recorder::global().collect().spans().size();
      return ms;
    }
    case kTorchProfiler: {
      profiler::enableProfilerLegacy(ProfilerConfig(ProfilerState::CPU));
      const StepTime ms = time_step(w);
      benchmark::DoNotOptimize(profiler::disableProfilerLegacy());
      return ms;
    }
  }
  return {};
}

struct Overheads {
  std::vector<double> jouleprof_pct, torch_profiler_pct;
  void add(double plain, double jouleprof, double torch_profiler) {
    jouleprof_pct.push_back(100.0 * (jouleprof / plain - 1.0));
    torch_profiler_pct.push_back(100.0 * (torch_profiler / plain - 1.0));
  }
};

std::string describe(const char* what, const std::array<std::vector<double>, 3>& ms,
                     const Overheads& o) {
  const auto b = jouleprof::summarize(o.jouleprof_pct);
  const auto c = jouleprof::summarize(o.torch_profiler_pct);
  char text[512];
  std::snprintf(
      text, sizeof text,
      "  %s: (a) %.1f  (b) %.1f  (c) %.1f ms/step (medians); overhead of (b) median %+.2f %%, "
      "mean %+.2f %% [95 %% CI %+.2f, %+.2f]; of (c) median %+.2f %%, mean %+.2f %% [95 %% CI "
      "%+.2f, %+.2f]\n",
      what, jouleprof::summarize(ms[kPlain]).median, jouleprof::summarize(ms[kJouleprof]).median,
      jouleprof::summarize(ms[kTorchProfiler]).median, b.median, b.mean, b.ci95_low, b.ci95_high,
      c.median, c.mean, c.ci95_low, c.ci95_high);
  return text;
}

void observed_step_overhead(benchmark::State& state, jt::WorkloadOptions options,
                            int warmup_steps) {
  static const bool one_interop_thread =
      [] {  // libtorch allows this once, before any parallel work
        torch::set_num_interop_threads(1);
        return true;
      }();
  benchmark::DoNotOptimize(one_interop_thread);
  options.threads = 1;
  auto workload = jt::make_workload(options);
  if (!workload.ok()) {
    state.SkipWithError(workload.error().message().c_str());
    return;
  }
  jt::Workload& w = **workload;
  jt::Observer observer;
  for (int i = 0; i < warmup_steps; ++i) {
    for (Mode mode : {kPlain, kJouleprof, kTorchProfiler}) observed_step(w, mode, observer);
  }

  std::array<std::vector<double>, 3> wall_ms, cpu_ms;
  Overheads wall, cpu;
  std::size_t round = 0;
  std::size_t spans_per_step = 0;
  for (auto _ : state) {
    std::array<StepTime, 3> t{};
    for (std::size_t k = 0; k < 3; ++k) {
      const auto mode = static_cast<Mode>((round + k) % 3);
      t[mode] = observed_step(w, mode, observer);
      if (t[mode].wall_ms < 0.0) {
        state.SkipWithError("the observer did not start (another one is running)");
        return;
      }
    }
    ++round;
    spans_per_step = t[kJouleprof].spans;
    for (std::size_t m = 0; m < 3; ++m) {
      wall_ms[m].push_back(t[m].wall_ms);
      cpu_ms[m].push_back(t[m].cpu_ms);
    }
    wall.add(t[kPlain].wall_ms, t[kJouleprof].wall_ms, t[kTorchProfiler].wall_ms);
    cpu.add(t[kPlain].cpu_ms, t[kJouleprof].cpu_ms, t[kTorchProfiler].cpu_ms);
    state.SetIterationTime((t[0].wall_ms + t[1].wall_ms + t[2].wall_ms) * 1e-3);
  }
  state.counters["plain_ms"] = jouleprof::summarize(wall_ms[kPlain]).median;
  state.counters["jouleprof_ms"] = jouleprof::summarize(wall_ms[kJouleprof]).median;
  state.counters["torch_profiler_ms"] = jouleprof::summarize(wall_ms[kTorchProfiler]).median;
  state.counters["jouleprof_overhead_pct"] = jouleprof::summarize(wall.jouleprof_pct).median;
  state.counters["torch_profiler_overhead_pct"] =
      jouleprof::summarize(wall.torch_profiler_pct).median;
  state.counters["jouleprof_cpu_overhead_pct"] = jouleprof::summarize(cpu.jouleprof_pct).median;
  state.counters["torch_profiler_cpu_overhead_pct"] =
      jouleprof::summarize(cpu.torch_profiler_pct).median;
  state.SetLabel(w.description());
  state.counters["spans_per_step"] = static_cast<double>(spans_per_step);
  std::printf("%s, %zu rounds, %zu spans recorded per step\n%s%s", w.description().c_str(), round,
              spans_per_step, describe("wall", wall_ms, wall).c_str(),
              describe("CPU ", cpu_ms, cpu).c_str());
}

// The cost per observed op, without a model's noise: a loop of one-element additions (one aten
// op, one RecordFunction each) timed plain, with jouleprof's observer and with libtorch's
// profiler, interleaved per round. The extra nanoseconds per op, times the spans a step records,
// give the step's overhead where a step's own run-to-run spread on a shared machine (±5 %) hides
// an effect of a fraction of a percent.
void per_op_cost(benchmark::State& state) {
  constexpr int kCalls = 20000;
  torch::NoGradGuard no_grad;
  const torch::Tensor x = torch::ones({1});
  const torch::Tensor y = torch::ones({1});
  const auto loop_ns = [&] {
    const double begin = process_cpu_ms();
    for (int i = 0; i < kCalls; ++i) benchmark::DoNotOptimize(at::add(x, y));
    return (process_cpu_ms() - begin) * 1e6 / kCalls;
  };
  jt::Observer observer;
  const auto run = [&](Mode mode) {
    switch (mode) {
      case kPlain:
        return loop_ns();
      case kJouleprof: {
        jouleprof::Recorder::global().start();
        if (!observer.start().ok()) return -1.0;
        const double ns = loop_ns();
        observer.stop();
        jouleprof::Recorder::global().stop();
        benchmark::DoNotOptimize(jouleprof::Recorder::global().collect());
        return ns;
      }
      case kTorchProfiler: {
        profiler::enableProfilerLegacy(ProfilerConfig(ProfilerState::CPU));
        const double ns = loop_ns();
        benchmark::DoNotOptimize(profiler::disableProfilerLegacy());
        return ns;
      }
    }
    return -1.0;
  };
  for (Mode mode : {kPlain, kJouleprof, kTorchProfiler}) run(mode);  // warm-up
  std::vector<double> plain, jouleprof_extra, torch_extra;
  std::size_t round = 0;
  for (auto _ : state) {
    std::array<double, 3> ns{};
    for (std::size_t k = 0; k < 3; ++k) {
      const auto mode = static_cast<Mode>((round + k) % 3);
      ns[mode] = run(mode);
    }
    ++round;
    plain.push_back(ns[kPlain]);
    jouleprof_extra.push_back(ns[kJouleprof] - ns[kPlain]);
    torch_extra.push_back(ns[kTorchProfiler] - ns[kPlain]);
  }
  const auto b = jouleprof::summarize(jouleprof_extra);
  const auto c = jouleprof::summarize(torch_extra);
  state.counters["plain_ns_per_op"] = jouleprof::summarize(plain).median;
  state.counters["jouleprof_extra_ns_per_op"] = b.median;
  state.counters["torch_profiler_extra_ns_per_op"] = c.median;
  std::printf(
      "per op (aten::add on one element, CPU time, %zu rounds of %d calls): plain %.0f ns; extra "
      "with "
      "(b) median %.0f ns [95 %% CI of the mean %.0f, %.0f]; with (c) median %.0f ns [%.0f, "
      "%.0f]\n",
      round, kCalls, jouleprof::summarize(plain).median, b.median, b.ci95_low, b.ci95_high,
      c.median, c.ci95_low, c.ci95_high);
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

BENCHMARK(per_op_cost)->Iterations(30)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(observed_step_overhead, bert_mini_train, bert_mini(), 3)
    ->UseManualTime()
    ->Iterations(40)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(observed_step_overhead, resnet18_train, resnet18(), 3)
    ->UseManualTime()
    ->Iterations(80)
    ->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
