// PRE training tables (seaa2023 run_summaries.csv or jouleprof's column names), read by
// `estimate train --data`; what it accepts is trained on, as `estimate train` does.
#include <cmath>
#include <cstdint>
#include <cstdlib>

#include "fuzz_input.hpp"
#include "training/gpu_specs.hpp"
#include "training/pre.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const jouleprof::GpuSpecTable specs = jouleprof::GpuSpecTable::built_in();
  const auto table =
      jouleprof::read_pre_runs_csv(jouleprof::fuzz::input_file(data, size, "runs.csv"), specs);
  if (!table || table->runs.size() > 64) return 0;  // training is cubic in the runs
  jouleprof::PreOptions options;
  options.search.iterations = 2;
  options.search.folds = 2;
  const auto model = jouleprof::train_pre(table->runs, options);
  if (!model) return 0;
  for (const jouleprof::PreRun& run : table->runs) (void)model->prediction_warnings(run.features);
  return 0;
}
