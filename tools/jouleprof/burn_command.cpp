// `jouleprof burn`: a small, honest CPU workload for demos and tests — N threads doing dependent
// floating-point multiply-adds for S seconds, reporting how much work they did.
#include <fmt/format.h>

#include <atomic>
#include <iostream>
#include <thread>
#include <vector>

#include "command.hpp"
#include "jouleprof/clock.hpp"
#include "jouleprof/recorder.hpp"
#include "number_checks.hpp"

namespace jouleprof::cli {
namespace {

// Eight independent multiply-add chains keep the FP units busy; the deadline is checked every
// kBlock iterations so the clock read costs nothing measurable.
constexpr int kChains = 8;
constexpr std::uint64_t kBlock = 1 << 16;
constexpr double kFlopsPerIteration = 2.0 * kChains;

std::uint64_t burn_until(TimeNs deadline_ns, double seed) {
  double x[kChains];
  for (int c = 0; c < kChains; ++c) x[c] = seed + c;
  std::uint64_t iterations = 0;
  while (monotonic_now_ns() < deadline_ns) {
    for (std::uint64_t i = 0; i < kBlock; ++i) {
      for (double& v : x) v = v * 0.999999 + 1e-6;
    }
    iterations += kBlock;
  }
  double sink = 0;
  for (double v : x) sink += v;
  // Keeps the loop from being optimised away; never true for these inputs.
  if (sink < 0) std::cerr << sink;
  return iterations;
}

}  // namespace

CommandRunner add_burn_command(CLI::App& parent) {
  CLI::App* app = parent.add_subcommand(
      "burn", "Built-in CPU workload: THREADS threads of floating-point multiply-adds for SECONDS");
  auto seconds = std::make_shared<double>(3.0);
  auto threads = std::make_shared<unsigned>(std::max(1U, std::thread::hardware_concurrency()));
  app->add_option("--seconds", *seconds, "How long to run, seconds (at most 86400: a day)")
      ->check(number_in(0.0, 86400.0));
  app->add_option("--threads", *threads,
                  fmt::format("How many threads (default: one per CPU; at most {})", kMaxThreads))
      ->check(count_up_to(kMaxThreads));
  auto epochs = std::make_shared<unsigned>(1);
  app->add_option("--epochs", *epochs,
                  "Split the time into this many equal epochs and report each one's begin and "
                  "end (jouleprof::epoch_begin/epoch_end), like a training job under "
                  "`run --epochs` (at most 100000)")
      ->check(CLI::Range(1U, 100000U));
  return [seconds, threads, epochs] {
    const TimeNs begin = monotonic_now_ns();
    std::atomic<std::uint64_t> total{0};
    for (unsigned e = 1; e <= *epochs; ++e) {
      // Each epoch lasts its share from its own start, so that one delayed by a loaded machine
      // is longer, never the ones after it empty.
      if (*epochs > 1) epoch_begin();
      const TimeNs deadline = monotonic_now_ns() + s_to_ns(*seconds / *epochs);
      std::vector<std::thread> workers;
      for (unsigned t = 0; t < *threads; ++t) {
        workers.emplace_back([&total, deadline, t] { total += burn_until(deadline, 1.0 + t); });
      }
      for (std::thread& w : workers) w.join();
      if (*epochs > 1) epoch_end();
    }
    const double elapsed_s = ns_to_s(monotonic_now_ns() - begin);
    const double gflop = static_cast<double>(total.load()) * kFlopsPerIteration * 1e-9;
    std::cout << fmt::format("burn: {} threads, {:.2f} s, {:.1f} GFLOP ({:.2f} GFLOP/s)\n",
                             *threads, elapsed_s, gflop, elapsed_s > 0 ? gflop / elapsed_s : 0.0);
    return kExitOk;
  };
}

}  // namespace jouleprof::cli
