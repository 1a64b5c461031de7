// Known-answer evaluation of the attribution methods: prints, per workload × counter × method,
// the per-class relative error against the simulator's truth, and how often the 95 % intervals
// hold it over COVERAGE_SEEDS seeds (default 20) of RUN_S-second runs (default 40; shorter runs
// weigh the window's ends more). Usage: eval_attribution [SEED [COVERAGE_SEEDS [RUN_S]]]
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <string>

#include "testing/known_answer_evaluation.hpp"

int main(int argc, char** argv) {
  std::uint64_t seed = 1;
  std::uint64_t coverage_seeds = 20;
  std::uint64_t run_s = 40;
  constexpr const char* kArgumentNames[] = {"SEED", "COVERAGE_SEEDS", "RUN_S"};
  std::uint64_t* const arguments[] = {&seed, &coverage_seeds, &run_s};
  for (int i = 1; i < argc && i <= 3; ++i) {
    char* end = nullptr;
    const std::uint64_t value = std::strtoull(argv[i], &end, 10);
    // A run of over a day is not what anyone meant, and its nanoseconds would near int64's end.
    if (end == argv[i] || *end != '\0' || (i == 3 && (value == 0 || value > 86'400))) {
      std::cerr << "eval_attribution: " << kArgumentNames[i - 1]
                << (i == 3 ? " must be a whole number of seconds from 1 to 86400"
                           : " must be a non-negative integer")
                << ", got '" << argv[i] << "'\n";
      return 2;
    }
    *arguments[i - 1] = value;
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
  std::cout << "\n95 % intervals over " << coverage_seeds << " seeds from " << seed << " (" << run_s
            << " s runs): coverage = share of (class, seed) pairs whose interval holds the\n"
               "true energy; median ± = median relative half-width; ± / err = its ratio to the "
               "median relative error;\np90/med = the errors' 90th percentile over their median, "
               "the least ± / err that bands of one\nrelative width can have at 90 % coverage\n\n"
            << format_coverage_table(
                   run_coverage_grid(seed, coverage_seeds,
                                     static_cast<jouleprof::TimeNs>(run_s) * jouleprof::kNsPerS));
  return 0;
}
