// Twelve finished runs on an RTX 3090 whose energy grows with their data and FLOPs: enough for a
// PRE model to train on in milliseconds. `batch_size(i)` gives run i's batch size.
#pragma once

#include <functional>
#include <vector>

#include "training/gpu_specs.hpp"
#include "training/pre.hpp"

namespace jouleprof::testing {

inline std::vector<PreRun> synthetic_pre_runs(const std::function<double(int)>& batch_size) {
  std::vector<PreRun> runs;
  for (int i = 0; i < 12; ++i) {
    PreRun run;
    run.features.batch_size = batch_size(i);
    run.features.training_size = 1000.0 + 100.0 * i;
    run.features.gflops_per_sample = 0.5 + 0.1 * i;
    run.features.ram_gb = 4;
    set_gpu(run.features, *GpuSpecTable::built_in().find("RTX 3090"));
    run.epochs = 10;
    run.duration_s = 600.0 + 30.0 * i;
    run.energy_j = 120000.0 + 9000.0 * i;
    run.average_power_w = run.energy_j / run.duration_s;
    runs.push_back(run);
  }
  return runs;
}

}  // namespace jouleprof::testing
