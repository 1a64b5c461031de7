// `report` on pathologically deep trees: read profile.json and render the text report, for a
// chain of 1 000 to 100 000 levels (issue 18's target: linear time, memory within 10× the file).
// Prints the time per level (flat when linear), the file size and the process's peak resident
// memory after the case (peaks only grow, so cases run from the smallest up). Each level holds a
// node with one channel's energy, as an attributed op nested in its caller would.
#include <benchmark/benchmark.h>
#include <fmt/format.h>
#include <sys/resource.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "jouleprof/profile.hpp"
#include "jouleprof/report.hpp"

namespace jouleprof {
namespace {

std::string deep_profile_file(std::int64_t levels) {
  Profile p;
  p.meta.kind = "attribute";
  ProfileNode root;
  root.name = "run";
  ProfileNode* at = &root;
  for (std::int64_t i = 0; i < levels; ++i) {
    at->energy_j = 1.0;
    at->energy_by_channel_j["rapl:package-0"] = 1.0;
    at->time_ns = 1'000'000;
    at->calls = 1;
    at->children.emplace_back();
    at = &at->children.back();
    at->name = fmt::format("layer_{}/aten::linear", i);
    at->category = SpanCategory::kOp;
  }
  at->energy_j = at->self_energy_j = 1.0;
  p.tree = std::move(root);
  const std::string path = (std::filesystem::temp_directory_path() /
                            fmt::format("jouleprof-deep-{}-{}.json", getpid(), levels))
                               .string();
  if (!write_profile_json(p, path)) std::abort();
  return path;
}

double peak_rss_mb() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;  // ru_maxrss is in KiB
}

void ReportDeepTree(benchmark::State& state) {
  const std::int64_t levels = state.range(0);
  const std::string path = deep_profile_file(levels);
  const auto file_bytes = static_cast<double>(std::filesystem::file_size(path));
  std::size_t report_bytes = 0;
  for (auto _ : state) {
    Result<Profile> profile = read_profile_json(path);
    if (!profile) {
      state.SkipWithError(profile.error().message().c_str());
      break;
    }
    Result<std::string> text = render_report("text", *profile);
    if (!text) {
      state.SkipWithError(text.error().message().c_str());
      break;
    }
    report_bytes = text->size();
    benchmark::DoNotOptimize(report_bytes);
  }
  std::filesystem::remove(path);
  state.SetComplexityN(levels);
  state.counters["time_per_level"] = benchmark::Counter(
      static_cast<double>(levels),
      benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
  state.counters["file_MB"] = file_bytes / 1e6;
  state.counters["report_MB"] = static_cast<double>(report_bytes) / 1e6;
  state.counters["peak_rss_MB"] = peak_rss_mb();
}
BENCHMARK(ReportDeepTree)
    ->Arg(1'000)
    ->Arg(10'000)
    ->Arg(100'000)
    ->Unit(benchmark::kMillisecond)
    ->Complexity(benchmark::oN);

}  // namespace
}  // namespace jouleprof

BENCHMARK_MAIN();
