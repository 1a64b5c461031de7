// Fusion rules files (nn-Meter's BF_<a>_<b> {"obey": bool}), read by `predict --rules`.
#include <cstdint>

#include "fuzz_input.hpp"
#include "predict/fusion_rules.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  (void)jouleprof::predict::FusionRules::from_file(
      jouleprof::fuzz::input_file(data, size, "rules.json"));
  return 0;
}
