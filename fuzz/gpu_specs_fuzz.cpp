// GPU specs files (name,cuda_cores,memory_gb,tdp_w,fp32_tflops), read by `--gpu-specs`; then the
// lookups PRE and the baselines make, with names taken from the file itself.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "fuzz_input.hpp"
#include "training/gpu_specs.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  jouleprof::GpuSpecTable table = jouleprof::GpuSpecTable::built_in();
  if (!table.load_overrides(jouleprof::fuzz::input_file(data, size, "gpus.csv"))) return 0;
  for (const jouleprof::GpuSpec& spec : table.entries()) {
    if (!(spec.tdp_w > 0.0) || !(spec.cuda_cores > 0.0)) std::abort();
    (void)table.find(spec.name);
    (void)table.find(spec.name.substr(0, spec.name.size() / 2));
  }
  return 0;
}
