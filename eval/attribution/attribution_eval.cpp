// Known-answer evaluation of the attribution methods: prints, per workload × counter × method,
// the per-class relative error against the simulator's truth. Usage: eval_attribution [SEED]
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <string>

#include "attribution/known_answer_evaluation.hpp"

int main(int argc, char** argv) {
  std::uint64_t seed = 1;
  if (argc > 1) {
    char* end = nullptr;
    seed = std::strtoull(argv[1], &end, 10);
    if (end == argv[1] || *end != '\0') {
      std::cerr << "eval_attribution: SEED must be a non-negative integer, got '" << argv[1]
                << "'\n";
      return 2;
    }
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
  return 0;
}
