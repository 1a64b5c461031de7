// Accuracy of STEP, PRE and the baselines on the seaa2023 training runs (del Rey et al.).
//   eval_training [DATA_DIR] [--seed N]
// DATA_DIR defaults to the shared reference data's seaa2023 folder.
#include <cstdlib>
#include <iostream>
#include <string>

#include "testing/training_evaluation.hpp"

int main(int argc, char** argv) {
  std::string data = std::string(JOULEPROF_SHARED_DATA) + "/seaa2023";
  std::uint32_t seed = 42;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--seed" && i + 1 < argc) {
      seed = static_cast<std::uint32_t>(std::strtoul(argv[++i], nullptr, 10));
    } else {
      data = arg;
    }
  }
  const jouleprof::GpuSpecTable specs = jouleprof::GpuSpecTable::built_in();
  const auto step =
      jouleprof::evaluate_step(data + "/runs.csv", jouleprof::StepOptions{}, specs, 5, seed);
  if (!step) {
    std::cerr << "eval_training: " << step.error().message() << '\n';
    return 1;
  }
  jouleprof::RandomSearchOptions search;
  search.seed = seed;
  const auto pre = jouleprof::evaluate_pre(data + "/run_summaries.csv", 0.3, seed, search, specs);
  if (!pre) {
    std::cerr << "eval_training: " << pre.error().message() << '\n';
    return 1;
  }
  const auto by_architecture =
      jouleprof::evaluate_pre_by_architecture(data + "/run_summaries.csv", search, specs);
  if (!by_architecture) {
    std::cerr << "eval_training: " << by_architecture.error().message() << '\n';
    return 1;
  }
  std::cout << "STEP and baselines (" << data << "/runs.csv)\n\n"
            << jouleprof::format_report(*step) << "\nPRE and baselines (" << data
            << "/run_summaries.csv)\n\n"
            << jouleprof::format_report(*pre)
            << "\nPRE leaving one architecture out (energy MAPE %, power x T; " << data
            << "/run_summaries.csv)\n\n"
            << jouleprof::format_report_by_scope(*by_architecture);
  return 0;
}
