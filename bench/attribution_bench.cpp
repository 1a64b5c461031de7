// Attribution throughput: spans attributed per second on one core (target ≥ 5 million/s), for a
// GPU-stream timeline of back-to-back kernels of 2–60 µs under a 1 ms counter, and for nested
// spans (steps > layers > ops) on CPU threads.
#include <random>

#include <benchmark/benchmark.h>

#include "jouleprof/attribution.hpp"

namespace {

using namespace jouleprof;

struct Input {
  Timeline timeline;
  std::vector<Series> series;
};

Input make_input(std::size_t spans, bool nested) {
  Input in;
  std::mt19937_64 rng(42);
  std::uniform_int_distribution<TimeNs> duration(2'000, 60'000);
  std::uniform_int_distribution<TimeNs> gap(0, 3'000);
  const auto track = in.timeline.add_track(Track{TrackKind::kGpuStream, "stream 7", "gpu0"});
  std::vector<std::uint32_t> names;
  for (int k = 0; k < 50; ++k) names.push_back(in.timeline.intern("layer_" + std::to_string(k % 12) + "/op_" + std::to_string(k)));
  TimeNs t = 0;
  std::uint32_t parent = kNoIndex;
  for (std::size_t i = 0; i < spans; ++i) {
    if (nested && i % 100 == 0) {
      if (parent != kNoIndex) in.timeline.spans()[parent].end_ns = t;
      parent = in.timeline.add_span(Span{t, t, track, in.timeline.intern("step"), kNoIndex, kNoIndex, SpanCategory::kStep});
      ++i;
    }
    t += gap(rng);
    const TimeNs d = duration(rng);
    in.timeline.add_span(Span{t, t + d, track, names[i % names.size()], parent, kNoIndex, SpanCategory::kKernel});
    t += d;
  }
  if (parent != kNoIndex) in.timeline.spans()[parent].end_ns = t;
  Series counter(Channel{"nvml:0", "bench", "gpu0", "gpu", ChannelKind::kEnergyCounter, Provenance::kMeasured, "", "",
                         kNsPerMs, 0});
  double e = 0.0;
  for (TimeNs u = 0; u <= t + kNsPerMs; u += kNsPerMs) {
    (void)counter.append(u, e);
    e += 0.3 + 0.2 * static_cast<double>(rng() % 100) / 100.0;
  }
  in.series.push_back(std::move(counter));
  return in;
}

void run(benchmark::State& state, AttributionMethod method, bool nested) {
  const Input in = make_input(static_cast<std::size_t>(state.range(0)), nested);
  AttributionOptions options;
  options.default_method = method;
  for (auto _ : state) {
    auto r = attribute(in.series, in.timeline, options);
    benchmark::DoNotOptimize(r);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) *
                          static_cast<std::int64_t>(in.timeline.spans().size()));
}

void BM_Interpolate(benchmark::State& s) { run(s, AttributionMethod::kInterpolate, false); }
void BM_InterpolateNested(benchmark::State& s) { run(s, AttributionMethod::kInterpolate, true); }
void BM_Hold(benchmark::State& s) { run(s, AttributionMethod::kHold, false); }
void BM_TimeSplit(benchmark::State& s) { run(s, AttributionMethod::kTimeSplit, false); }

BENCHMARK(BM_Interpolate)->Arg(100'000)->Arg(1'000'000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_InterpolateNested)->Arg(1'000'000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Hold)->Arg(1'000'000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_TimeSplit)->Arg(1'000'000)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
