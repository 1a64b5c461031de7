// profile.json, read by `report`, `compare`, `merge` and the history: the reader, then every
// report format on whatever it accepted, then the round trips (written expanded or packed and
// read back, a profile is identical).
#include <cstdint>
#include <cstdlib>
#include <string>

#include "jouleprof/profile.hpp"
#include "jouleprof/report.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const auto profile = jouleprof::profile_from_json_string(text, "profile.json");
  if (!profile) return 0;
  for (const jouleprof::ReportFormat& format : jouleprof::report_formats()) {
    (void)jouleprof::render_report(format.name, *profile);
  }
  (void)jouleprof::figure_problems(*profile);
  const std::string written = jouleprof::profile_to_json_string(*profile);
  const auto back = jouleprof::profile_from_json_string(written, "written");
  if (!back) std::abort();
  if (jouleprof::profile_to_json_string(*back) != written) std::abort();
  const std::string packed =
      jouleprof::profile_to_json_string(*profile, -1, jouleprof::ProfileArrays::kPacked);
  const auto unpacked = jouleprof::profile_from_json_string(packed, "packed");
  if (!unpacked || jouleprof::profile_to_json_string(*unpacked) != written) std::abort();
  return 0;
}
