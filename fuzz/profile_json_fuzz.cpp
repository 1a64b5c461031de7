// profile.json, read by `report`, `compare`, `merge` and the history: the reader, then every
// report format on whatever it accepted, then the round trips (written expanded or packed and
// read back, a profile is identical), and the plausibility gate (core/figure_bounds.hpp): every
// energy, power and share of the tree prints in a few characters, never as inf, nan or 300 digits.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "core/quantity_text.hpp"
#include "jouleprof/profile.hpp"
#include "jouleprof/report.hpp"

namespace {

// "4.56 kJ", "invalid": a printed figure is short and never a non-finite number.
void expect_plausible_text(const std::string& text) {
  constexpr std::size_t kLongestFigure = 16;
  if (text.size() > kLongestFigure || text.find("inf") != std::string::npos ||
      text.find("nan") != std::string::npos) {
    std::abort();
  }
}

void check_printed_figures(const jouleprof::Profile& profile) {
  if (!profile.tree) return;
  jouleprof::walk_tree(*profile.tree, [](const jouleprof::ProfileNode& n, int) {
    expect_plausible_text(jouleprof::format_energy(n.energy_j));
    expect_plausible_text(jouleprof::format_energy(n.self_energy_j));
    expect_plausible_text(jouleprof::format_power(n.mean_power_w()));
    for (const jouleprof::ProfileNode& c : n.children) {
      expect_plausible_text(jouleprof::format_share(c.energy_j / n.energy_j));
    }
  });
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const auto profile = jouleprof::profile_from_json_string(text, "profile.json");
  if (!profile) return 0;
  for (const jouleprof::ReportFormat& format : jouleprof::report_formats()) {
    (void)jouleprof::render_report(format.name, *profile);
  }
  (void)jouleprof::figure_problems(*profile);
  check_printed_figures(*profile);
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
