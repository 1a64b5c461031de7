// Cost of one begin+end pair on the hot path, beside the obvious alternative: a recorder that
// takes a mutex and appends to a shared vector with clock_gettime timestamps. Target: at most
// 50 ns per pair (issue #3). The off case shows what instrumentation costs when not recording.
#include <benchmark/benchmark.h>

#include <mutex>
#include <vector>

#include "jouleprof/recorder.hpp"

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

}  // namespace
}  // namespace jouleprof

BENCHMARK_MAIN();
