// Kernel configuration spaces (`kernel-bench --space`): the reader, then sampling from each
// space as kernel-bench does.
#include <cstdint>

#include "fuzz_input.hpp"
#include "predict/kernel_space.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto spaces =
      jouleprof::predict::read_kernel_spaces(jouleprof::fuzz::input_file(data, size, "space.json"));
  if (!spaces) return 0;
  for (const auto& [type, space] : *spaces) (void)jouleprof::predict::sample_kernels(space, 4, 1);
  return 0;
}
