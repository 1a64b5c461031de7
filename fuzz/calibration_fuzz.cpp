// Calibration files (hand-written or from `calibrate`), read by `attribute --calibration`.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "jouleprof/calibration.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const auto calibration = jouleprof::calibration_from_json_string(text, "calibration.json");
  if (!calibration) return 0;
  const std::string written = jouleprof::calibration_to_json_string(*calibration);
  if (!jouleprof::calibration_from_json_string(written, "written")) std::abort();
  return 0;
}
