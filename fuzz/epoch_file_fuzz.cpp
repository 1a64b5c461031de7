// Epoch ends: the file a training job's epoch_end() appends to (`run --epochs`), and the
// `epoch,end_s` CSV of `project --epochs-csv`. The first byte picks the reader.
#include <cstdint>

#include "fuzz_input.hpp"
#include "jouleprof/epoch_file.hpp"
#include "training/epoch_log.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string path = jouleprof::fuzz::input_file(data + 1, size - 1, "epochs");
  if (data[0] % 2 == 0) {
    (void)jouleprof::read_epoch_file(path);
  } else {
    (void)jouleprof::read_epochs_csv(path, 1'000'000'000);
  }
  return 0;
}
