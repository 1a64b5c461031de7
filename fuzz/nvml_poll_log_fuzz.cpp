// NVML poll logs (t_ns,instant_mw,instant_nvml_ts_us,avg_mw,energy_mj), read by
// `attribute --samples`.
#include <cstdint>

#include "attribution/recording_inputs.hpp"
#include "fuzz_input.hpp"
#include "series_invariants.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto series = jouleprof::attribution::read_nvml_poll_csv(
      jouleprof::fuzz::input_file(data, size, "nvml.csv"), "gpu0");
  if (series) jouleprof::fuzz::check_series(*series);
  return 0;
}
