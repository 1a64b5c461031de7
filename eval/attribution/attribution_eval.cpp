// Known-answer evaluation of the attribution methods: prints, per workload × counter × method,
// the per-class relative error against the simulator's truth, and how often the 95 % intervals
// hold it over COVERAGE_SEEDS seeds (default 20). Usage: eval_attribution [SEED [COVERAGE_SEEDS]]
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <string>

#include "testing/known_answer_evaluation.hpp"

int main(int argc, char** argv) {
  std::uint64_t seed = 1;
  std::uint64_t coverage_seeds = 20;
  for (int i = 1; i < argc && i <= 2; ++i) {
    char* end = nullptr;
    const std::uint64_t value = std::strtoull(argv[i], &end, 10);
    if (end == argv[i] || *end != '\0') {
      std::cerr << "eval_attribution: " << (i == 1 ? "SEED" : "COVERAGE_SEEDS")
                << " must be a non-negative integer, got '" << argv[i] << "'\n";
      return 2;
    }
    (i == 1 ? seed : coverage_seeds) = value;
  }
  using namespace jouleprof::attribution;
  std::cout << "Attribution known-answer evaluation (seed " << seed
            << "): per-class relative error vs simulator truth\n"
            << "median/p90 over op classes; tree-meas = |tree total - measured| / measured; "
               "spans-true = |sum of span energy - truth| / truth\n\n";
  std::cout << format_evaluation_table(run_evaluation_grid(seed));
  std::cout << "\nInterpolate (refined, and plain) on the (a) 1 ms counter, steady step, op "
               "durations scaled\n"
               "(per-class error vs op length / update period; 20 s runs):\n\n"
            << format_duration_sweep(run_duration_sweep(seed));
  std::cout << "\n95 % intervals over " << coverage_seeds << " seeds from " << seed
            << " (40 s runs): coverage = share of (class, seed) pairs whose interval holds the\n"
               "true energy; median ± = median relative half-width; ± / err = its ratio to the "
               "median relative error\n\n"
            << format_coverage_table(
                   run_coverage_grid(seed, coverage_seeds, 40 * jouleprof::kNsPerS));
  return 0;
}
