// The sampler's own cost: CPU time of the sampling thread polling at 1 kHz (target: below 1 % of
// one core), the read latency of the sources it ships with, and the memory its samples take per
// channel-hour. Figures quoted in docs/sources.md "## Sampler".
#include <benchmark/benchmark.h>
#include <time.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include "jouleprof/source.hpp"
#include "sampling/sampler.hpp"
#include "sources/backends.hpp"

namespace jouleprof {
namespace {

TimeNs thread_cpu_ns() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<TimeNs>(ts.tv_sec) * kNsPerS + ts.tv_nsec;
}

std::unique_ptr<Source> simulated(const char* channels) {
  SourceOptions options;
  options.settings = {{"simulate.watts", "50"}, {"simulate.channels", channels}};
  return make_simulated_source(options);
}

// Polls the simulated source at 1 kHz for 5 s of wall time (state.range(0) sources at once).
void BM_SamplerOverheadAt1kHz(benchmark::State& state) {
  for (auto _ : state) {
    std::vector<std::unique_ptr<Source>> sources;
    for (int64_t i = 0; i < state.range(0); ++i) sources.push_back(simulated("energy,power"));
    Sampler sampler(std::move(sources), SamplerOptions{kNsPerMs});
    sampler.start();
    std::this_thread::sleep_for(std::chrono::seconds(5));
    sampler.stop();
    const SamplerStats& stats = sampler.stats();
    const double seconds = ns_to_s(stats.wall_ns);
    state.counters["cpu_percent_of_one_core"] = 100.0 * stats.cpu_fraction_of_one_core();
    state.counters["cpu_us_per_poll"] =
        ns_to_s(stats.thread_cpu_ns) * 1e6 / static_cast<double>(stats.polls);
    state.counters["polls_per_s"] = static_cast<double>(stats.polls) / seconds;
    // What the same thread would cost if every poll were on time: polls per second at 1 kHz.
    state.counters["cpu_percent_at_1kHz_per_source"] =
        ns_to_s(stats.thread_cpu_ns) / static_cast<double>(stats.polls) * 1000.0 * 100.0;
  }
}
BENCHMARK(BM_SamplerOverheadAt1kHz)
    ->Arg(1)
    ->Arg(4)
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// The floor under any 1 kHz poller: a thread that only sleeps to absolute 1 ms deadlines and
// wakes up, for 5 s. What the sampler costs above this is its own work; the floor itself is the
// kernel's timer and scheduler (on virtual machines, timer exits inflate it several-fold).
void BM_BareWakeUpsAt1kHz(benchmark::State& state) {
  for (auto _ : state) {
    std::uint64_t wakes = 0;
    TimeNs cpu_ns = 0;
    std::thread sleeper([&] {
      const TimeNs cpu_begin = thread_cpu_ns();
      const TimeNs begin = monotonic_now_ns();
      for (TimeNs deadline = begin + kNsPerMs; deadline < begin + 5 * kNsPerS;
           deadline += kNsPerMs) {
        const timespec until{static_cast<time_t>(deadline / kNsPerS),
                             static_cast<long>(deadline % kNsPerS)};
        clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until, nullptr);
        ++wakes;
      }
      cpu_ns = thread_cpu_ns() - cpu_begin;
    });
    sleeper.join();
    state.counters["cpu_us_per_wake"] = ns_to_s(cpu_ns) * 1e6 / static_cast<double>(wakes);
    state.counters["cpu_percent_of_one_core"] = ns_to_s(cpu_ns) / 5.0 * 100.0;
  }
}
BENCHMARK(BM_BareWakeUpsAt1kHz)->Iterations(1)->Unit(benchmark::kMillisecond)->UseRealTime();

// Memory of one channel-hour at 1 kHz as the sampler stores it (3.6 million samples).
void BM_MemoryPerChannelHourAt1kHz(benchmark::State& state) {
  Channel c;
  c.id = "bench:counter";
  for (auto _ : state) {
    Series s(c);
    for (int64_t i = 0; i < 3600 * 1000; ++i) (void)s.append(i * kNsPerMs, static_cast<double>(i));
    state.counters["MB_per_channel_hour"] = static_cast<double>(s.memory_bytes()) / 1e6;
    state.counters["bytes_per_sample"] =
        static_cast<double>(s.memory_bytes()) / static_cast<double>(s.size());
  }
}
BENCHMARK(BM_MemoryPerChannelHourAt1kHz)->Iterations(1)->Unit(benchmark::kMillisecond);

void BM_SimulatedRead(benchmark::State& state) {
  auto source = simulated("energy,power");
  std::vector<Reading> readings(source->channels().size());
  for (auto _ : state) {
    source->read(readings);
    benchmark::DoNotOptimize(readings.data());
  }
}
BENCHMARK(BM_SimulatedRead);

// One read of the CPU estimate on a fake /proc/stat (a file open, read and parse).
void BM_CpuEstimateRead(benchmark::State& state) {
  const std::filesystem::path root =
      std::filesystem::temp_directory_path() / "jouleprof-bench-root";
  std::filesystem::create_directories(root / "proc");
  {
    std::ofstream stat(root / "proc" / "stat");
    stat << "cpu  23491 0 5306 90075 1435 0 327 6658 0 0\n";
    for (int cpu = 0; cpu < 64; ++cpu) stat << "cpu" << cpu << " 367 0 82 1407 22 0 5 104 0 0\n";
    stat << "intr 1234 0 0\nctxt 5678\nbtime 1700000000\nprocesses 42\n";
  }
  SourceOptions options;
  options.sysfs_root = root.string();
  auto source = make_cpu_estimate_source(options);
  std::vector<Reading> readings(source->channels().size());
  for (auto _ : state) {
    source->read(readings);
    benchmark::DoNotOptimize(readings.data());
  }
  std::filesystem::remove_all(root);
}
BENCHMARK(BM_CpuEstimateRead);

}  // namespace
}  // namespace jouleprof

BENCHMARK_MAIN();
