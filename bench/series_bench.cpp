// Cost of storing samples, and the memory one channel needs per hour at 1 kHz.
#include <benchmark/benchmark.h>

#include "jouleprof/series.hpp"

namespace jouleprof {
namespace {

void BM_SeriesAppend(benchmark::State& state) {
  Channel c;
  c.id = "bench:counter";
  for (auto _ : state) {
    Series s(c);
    for (int64_t i = 0; i < state.range(0); ++i) {
      benchmark::DoNotOptimize(s.append(i * kNsPerMs, static_cast<double>(i)));
    }
    state.counters["bytes_per_sample"] =
        static_cast<double>(s.memory_bytes()) / static_cast<double>(s.size());
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_SeriesAppend)->Arg(1 << 16);

// One hour at 1 kHz on one channel: the figure docs/sources.md quotes.
void BM_SeriesHourAt1kHz(benchmark::State& state) {
  Channel c;
  c.id = "bench:counter";
  constexpr int64_t kSamples = 3600 * 1000;
  for (auto _ : state) {
    Series s(c);
    for (int64_t i = 0; i < kSamples; ++i) (void)s.append(i * kNsPerMs, static_cast<double>(i));
    state.counters["MB_per_channel_hour"] = static_cast<double>(s.memory_bytes()) / 1e6;
  }
}
BENCHMARK(BM_SeriesHourAt1kHz)->Iterations(1)->Unit(benchmark::kMillisecond);

void BM_CounterEnergyBetween(benchmark::State& state) {
  Channel c;
  c.id = "bench:counter";
  Series s(c);
  for (int64_t i = 0; i < 1'000'000; ++i) (void)s.append(i * kNsPerMs, static_cast<double>(i));
  int64_t t = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(s.energy_between_j(t, t + 5 * kNsPerMs));
    t = (t + 7'777'777) % (900'000 * kNsPerMs);
  }
}
BENCHMARK(BM_CounterEnergyBetween);

}  // namespace
}  // namespace jouleprof

BENCHMARK_MAIN();
