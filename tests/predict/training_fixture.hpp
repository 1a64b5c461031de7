// Synthetic conv kernels with a known energy law, for tests that need a trained bundle quickly.
#pragma once

#include <vector>

#include "predict/kernel_dataset.hpp"

namespace jouleprof::predict::testing {

inline std::vector<KernelSample> synthetic_conv_samples(int count) {
  std::vector<KernelSample> samples;
  const int sizes[] = {7, 14, 28, 56};
  const int channels[] = {16, 32, 64, 128};
  for (int i = 0; i < count; ++i) {
    KernelSample s;
    s.config.name = "k" + std::to_string(i);
    s.config.op = "conv-bn-relu";
    s.config.hw = sizes[i % 4];
    s.config.cin = channels[(i / 4) % 4];
    s.config.cout = channels[(i / 16) % 4];
    s.config.kernel_size = i % 2 == 0 ? 1 : 3;
    s.config.stride = 1 + (i / 64) % 2;
    s.energy_mj = 0.05 + conv_flops(s.config) * 1e-8;
    s.source = "synthetic";
    samples.push_back(s);
  }
  return samples;
}

}  // namespace jouleprof::predict::testing
