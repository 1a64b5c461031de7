// samples.csv, as `run` writes it and `attribute --samples` reads it; a file read back must keep
// the importers' promises (finite, ordered, counters never going back) and survive a round trip.
#include <cstdint>
#include <cstdlib>

#include "fuzz_input.hpp"
#include "jouleprof/samples_csv.hpp"
#include "series_invariants.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto series =
      jouleprof::parse_samples_csv(jouleprof::fuzz::as_text(data, size), "samples.csv");
  if (!series) return 0;
  jouleprof::fuzz::check_series(*series);
  const std::string path = jouleprof::fuzz::input_file(data, 0, "written.csv");
  if (!jouleprof::write_samples_csv(*series, path)) std::abort();
  const auto back = jouleprof::read_samples_csv(path);
  if (!back || back->size() != series->size()) std::abort();
  for (std::size_t i = 0; i < back->size(); ++i) {
    if ((*back)[i].size() != (*series)[i].size()) std::abort();
  }
  return 0;
}
