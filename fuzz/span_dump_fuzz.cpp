// jouleprof span dumps (the JOULEPROF_SPANS_FILE a recorded process writes at exit).
#include <cstdint>
#include <cstdlib>

#include "fuzz_input.hpp"
#include "jouleprof/span_dump.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto dump =
      jouleprof::read_span_dump(jouleprof::fuzz::input_file(data, size, "spans.json"));
  if (!dump) return 0;
  if (dump->timeline.find_parent_cycle()) std::abort();  // parents must precede their children
  return 0;
}
