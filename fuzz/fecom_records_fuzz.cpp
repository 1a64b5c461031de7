// FECoM's per-call experiment records (experiment-<k>.json), read by `measure --fecom-records`,
// then analysed with the record's own settings for each device.
#include <cmath>
#include <cstdint>
#include <cstdlib>

#include "fuzz_input.hpp"
#include "jouleprof/fecom_records.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto calls = jouleprof::read_fecom_experiment(
      jouleprof::fuzz::input_file(data, size, "experiment-1.json"));
  if (!calls) return 0;
  for (const jouleprof::FecomCall& call : *calls) {
    for (jouleprof::FecomDevice d : jouleprof::kFecomDevices) {
      const auto energy = jouleprof::analyse_fecom_call(call, d);
      if (energy && !std::isfinite(energy->total_j)) std::abort();
    }
  }
  return 0;
}
