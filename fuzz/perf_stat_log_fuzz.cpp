// `perf stat -I N -x ';'` energy logs, read by `project --trace` and the power-log replay source.
#include <cstdint>

#include "fuzz_input.hpp"
#include "series_invariants.hpp"
#include "sources/power_log.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  jouleprof::PowerLogOptions options;
  const auto log = jouleprof::read_perf_stat_log(
      jouleprof::fuzz::input_file(data, size, "perf_stat_log.csv"), options);
  if (log) jouleprof::fuzz::check_series(log->series);
  return 0;
}
