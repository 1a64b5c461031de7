// Chrome / PyTorch (Kineto) / TensorFlow trace JSON and jouleprof span dumps, plain or gzipped:
// the file reader (gunzip included) and the importer behind `attribute --trace`.
#include <cstdint>
#include <cstdlib>

#include "fuzz_input.hpp"
#include "jouleprof/trace_import.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = jouleprof::fuzz::input_file(data, size, "trace.json");
  const auto imported = jouleprof::import_trace(path);
  if (!imported) return 0;
  const jouleprof::Timeline& t = imported->timeline;
  if (t.find_parent_cycle()) std::abort();  // an importer must never build one
  for (const jouleprof::Span& s : t.spans()) {
    if (s.track >= t.tracks().size() || s.name >= t.names().size()) std::abort();
    if (s.parent != jouleprof::kNoIndex && s.parent >= t.spans().size()) std::abort();
  }
  (void)t.extent();
  return 0;
}
