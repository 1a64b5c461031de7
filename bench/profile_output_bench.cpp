// Writing and reading the profile of a one-million-span run (issue #17's target: written in at most
// 1.5 s, at most 40 MB on disk, read back as fast), packed (what files hold) beside expanded (one
// JSON array a row: schema version 1's layout and `report --format json`'s), side by side in one
// run. The profile is a profiler's: spans nested three deep on four tracks over 2 000 op names,
// some with attributes, and an NVML-like counter read every 10 ms. With JOULEPROF_BENCH_TRACE set
// to a Chrome/Kineto trace (e.g. ../shared/data/h200/bert_fold.json.gz) its timeline is used
// instead. Counters: MB on disk, spans; the time is per write or read of the whole profile.
#include <benchmark/benchmark.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <random>

#include "jouleprof/profile.hpp"
#include "jouleprof/trace_import.hpp"

namespace jouleprof {
namespace {

constexpr std::size_t kSpans = 1'000'000;

Timeline generated_timeline() {
  Timeline t;
  std::mt19937_64 rng(17);
  std::uniform_int_distribution<int> pick(0, 1999);
  std::vector<std::uint32_t> names;
  for (int k = 0; k < 2000; ++k) {
    names.push_back(t.intern(fmt::format("model/encoder/layer_{}/aten::op_{}", k % 12, k)));
  }
  for (int k = 0; k < 4; ++k) {
    t.add_track(Track{k < 2 ? TrackKind::kCpuThread : TrackKind::kGpuStream,
                      fmt::format("track {}", k), k < 2 ? "cpu0" : "gpu0"});
  }
  const std::uint32_t attrs = t.add_attributes({{"Input Dims", "[[32, 128, 768], [768]]"}});
  TimeNs at = 5'132'481'649'229'954;
  while (t.spans().size() + 3 <= kSpans) {
    const auto track = static_cast<std::uint32_t>(pick(rng) % 4);
    const auto layer = static_cast<std::uint32_t>(t.spans().size());
    const TimeNs length = 20'000 + pick(rng) * 17;
    t.add_span(Span{at, at + length, track, names[pick(rng)], kNoIndex, kNoIndex,
                    SpanCategory::kLayer, Pass::kForward});
    t.add_span(Span{at + 500, at + length / 2, track, names[pick(rng)], layer,
                    pick(rng) < 200 ? attrs : kNoIndex, SpanCategory::kOp, Pass::kForward});
    t.add_span(Span{at + length / 2, at + length - 700, track, names[pick(rng)], layer, kNoIndex,
                    SpanCategory::kKernel, Pass::kForward});
    at += length + pick(rng) * 3;
  }
  return t;
}

const Profile& one_million_spans() {
  static const Profile profile = [] {
    Profile p;
    p.meta.tool_version = "bench";
    p.meta.kind = "attribute";
    if (const char* trace = std::getenv("JOULEPROF_BENCH_TRACE")) {
      Result<TraceImport> imported = import_trace(trace);
      if (!imported) {
        fmt::print(stderr, "{}\n", imported.error().message());
        std::exit(1);
      }
      p.timeline = std::move(imported->timeline);
    } else {
      p.timeline = generated_timeline();
    }
    const auto [begin, end] = p.timeline.extent();
    p.meta.begin_ns = begin;
    p.meta.end_ns = end;
    Channel counter;
    counter.id = "nvml:0:energy";
    counter.source = "nvml";
    counter.device = "gpu0";
    counter.domain = "gpu";
    Series s(counter);
    double energy_j = 351'227.125;
    std::mt19937_64 rng(3);
    std::uniform_int_distribution<int> jitter(-300'000, 300'000);
    for (TimeNs t = begin; t < end; t += 10'000'000 + jitter(rng)) {
      (void)s.append(t, energy_j);
      energy_j += 6.15 + jitter(rng) * 1e-6;
    }
    p.series.push_back(std::move(s));
    return p;
  }();
  return profile;
}

std::string bench_path(const char* name) {
  return (std::filesystem::temp_directory_path() /
          fmt::format("jouleprof-bench-{}-{}.json", getpid(), name))
      .string();
}

void set_counters(benchmark::State& state, const std::string& path) {
  state.counters["MB_on_disk"] = static_cast<double>(std::filesystem::file_size(path)) / 1e6;
  state.counters["spans"] = static_cast<double>(one_million_spans().timeline.spans().size());
}

void BM_Write(benchmark::State& state, ProfileArrays arrays, const char* name) {
  const Profile& p = one_million_spans();
  const std::string path = bench_path(name);
  for (auto _ : state) {
    if (!write_profile_json(p, path, arrays)) state.SkipWithError("write failed");
  }
  set_counters(state, path);
  std::filesystem::remove(path);
}

void BM_Read(benchmark::State& state, ProfileArrays arrays, const char* name) {
  const std::string path = bench_path(name);
  if (!write_profile_json(one_million_spans(), path, arrays)) state.SkipWithError("write failed");
  for (auto _ : state) {
    Result<Profile> back = read_profile_json(path);
    if (!back) state.SkipWithError(back.error().message().c_str());
    benchmark::DoNotOptimize(back);
  }
  set_counters(state, path);
  std::filesystem::remove(path);
}

BENCHMARK_CAPTURE(BM_Write, packed, ProfileArrays::kPacked, "write-packed")
    ->Unit(benchmark::kMillisecond)
    ->Iterations(3);
BENCHMARK_CAPTURE(BM_Write, expanded, ProfileArrays::kExpanded, "write-expanded")
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK_CAPTURE(BM_Read, packed, ProfileArrays::kPacked, "read-packed")
    ->Unit(benchmark::kMillisecond)
    ->Iterations(3);
BENCHMARK_CAPTURE(BM_Read, expanded, ProfileArrays::kExpanded, "read-expanded")
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);

}  // namespace
}  // namespace jouleprof

BENCHMARK_MAIN();
