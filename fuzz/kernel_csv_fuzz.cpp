// Measured-kernel files read by `train-predictor --kernels`: the kernel CSV (as `kernel-bench`
// writes it and PlatformX publishes it) and nn-Meter's kernel JSON. The first byte picks which.
#include <cstdint>
#include <filesystem>
#include <vector>

#include "fuzz_input.hpp"
#include "predict/kernel_dataset.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::vector<std::filesystem::path> files{jouleprof::fuzz::input_file(
      data + 1, size - 1, data[0] % 2 == 0 ? "kernels.csv" : "kernels.json")};
  (void)jouleprof::predict::read_kernel_files(files);
  return 0;
}
