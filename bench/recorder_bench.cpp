// Cost of one begin+end pair on the hot path, beside the obvious alternative: a recorder that
// takes a mutex and appends to a shared vector with clock_gettime timestamps. Targets (issue 17):
// at most 15 ns per pair, 5× cheaper than the baseline, at most 1 ns when recording is off.
// The clock benchmarks are the floors: a pair reads the clock twice, so no recorder that stamps
// every record can cost less than BM_RawClockPair, nor the baseline less than BM_ClockGettimePair.
// The Work pair shows what a pair adds to code that does work between begin and end: the clock
// reads do not serialise the CPU, so part of their cost hides behind that work.
#include <benchmark/benchmark.h>
#include <time.h>

#include <cstdint>
#include <mutex>
#include <vector>

#include "jouleprof/recorder.hpp"
#include "timeline/raw_clock.hpp"

namespace jouleprof {
namespace {

// The baseline: what a straightforward recorder does.
class MutexVectorRecorder {
 public:
  struct Event {
    TimeNs t_ns;
    NameId name;
    bool is_begin;
  };
  void begin(NameId name) {
    const std::lock_guard lock(mutex_);
    events_.push_back(Event{monotonic_now_ns(), name, true});
  }
  void end() {
    const std::lock_guard lock(mutex_);
    events_.push_back(Event{monotonic_now_ns(), 0, false});
  }
  void clear() {
    const std::lock_guard lock(mutex_);
    events_.clear();
  }

 private:
  std::mutex mutex_;
  std::vector<Event> events_;
};

// Pairs recorded between collects: fits the default buffer, so nothing is dropped.
constexpr int kPairsPerRound = 100'000;

void BM_RecorderPair(benchmark::State& state) {
  const NameId name = intern_name("bench/pair");
  Recorder& recorder = Recorder::global();
  if (state.thread_index() == 0) recorder.start();
  int in_round = 0;
  for (auto _ : state) {
    begin(name, SpanCategory::kOp);
    end();
    if (++in_round == kPairsPerRound) {
      // Restarting resets the buffers without the cost of building a Timeline.
      state.PauseTiming();
      if (state.thread_index() == 0) recorder.start();
      in_round = 0;
      state.ResumeTiming();
    }
  }
  if (state.thread_index() == 0) {
    state.counters["dropped"] = static_cast<double>(recorder.dropped());
    recorder.stop();
    state.SetLabel(std::string(recorder.clock_source()));
  }
}
BENCHMARK(BM_RecorderPair);
BENCHMARK(BM_RecorderPair)->Threads(2);

void BM_RecorderPairOff(benchmark::State& state) {
  const NameId name = intern_name("bench/pair");
  Recorder::global().stop();
  for (auto _ : state) {
    begin(name, SpanCategory::kOp);
    end();
  }
}
BENCHMARK(BM_RecorderPairOff);

void BM_MutexVectorPair(benchmark::State& state) {
  static MutexVectorRecorder baseline;
  const NameId name = intern_name("bench/pair");
  int in_round = 0;
  for (auto _ : state) {
    baseline.begin(name);
    baseline.end();
    if (++in_round == kPairsPerRound) {
      state.PauseTiming();
      if (state.thread_index() == 0) baseline.clear();
      in_round = 0;
      state.ResumeTiming();
    }
  }
}
BENCHMARK(BM_MutexVectorPair);
BENCHMARK(BM_MutexVectorPair)->Threads(2);

// Two reads of the clock the recorder chose (label): the floor of one begin+end pair.
void BM_RawClockPair(benchmark::State& state) {
  const timeline::RawClock clock = timeline::choose_raw_clock();
  for (auto _ : state) {
    benchmark::DoNotOptimize(timeline::raw_now(clock));
    benchmark::DoNotOptimize(timeline::raw_now(clock));
  }
  state.SetLabel(std::string(timeline::to_string(clock)));
}
BENCHMARK(BM_RawClockPair);

// Two clock_gettime(CLOCK_MONOTONIC) reads: the floor of the baseline's pair, and what the
// recorder would cost on a machine whose kernel does not use the TSC.
void BM_ClockGettimePair(benchmark::State& state) {
  for (auto _ : state) {
    timespec a{};
    timespec b{};
    clock_gettime(CLOCK_MONOTONIC, &a);
    clock_gettime(CLOCK_MONOTONIC, &b);
    benchmark::DoNotOptimize(a);
    benchmark::DoNotOptimize(b);
  }
}
BENCHMARK(BM_ClockGettimePair);

// About 70 ns of dependent integer work, the body of a small instrumented region.
std::uint64_t region_work(std::uint64_t x) {
  for (int k = 0; k < 64; ++k) x = x * 6364136223846793005ULL + 1442695040888963407ULL;
  return x;
}

void BM_Work(benchmark::State& state) {
  std::uint64_t x = 1;
  for (auto _ : state) {
    x = region_work(x);
    benchmark::DoNotOptimize(x);
  }
}
BENCHMARK(BM_Work);

// BM_WorkInsidePair − BM_Work: the pair's cost around real work.
void BM_WorkInsidePair(benchmark::State& state) {
  const NameId name = intern_name("bench/work");
  Recorder& recorder = Recorder::global();
  recorder.start();
  std::uint64_t x = 1;
  int in_round = 0;
  for (auto _ : state) {
    begin(name, SpanCategory::kOp);
    x = region_work(x);
    benchmark::DoNotOptimize(x);
    end();
    if (++in_round == kPairsPerRound) {
      state.PauseTiming();
      recorder.start();
      in_round = 0;
      state.ResumeTiming();
    }
  }
  state.counters["dropped"] = static_cast<double>(recorder.dropped());
  recorder.stop();
}
BENCHMARK(BM_WorkInsidePair);

}  // namespace
}  // namespace jouleprof

BENCHMARK_MAIN();
