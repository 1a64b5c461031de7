#include "report/uncertainty_advice.hpp"

#include <fmt/format.h>

#include "core/quantity_text.hpp"
#include "jouleprof/attribution.hpp"

namespace jouleprof::report {

std::string_view shrink_advice(UncertaintyTerm term) {
  switch (term) {
    case UncertaintyTerm::kSplit:
      return "calibrate the classes (jouleprof calibrate --model …, then attribute "
             "--calibration FILE), or read a counter that updates faster than the spans";
    case UncertaintyTerm::kQuantisation:
    case UncertaintyTerm::kWindowEdges:
    case UncertaintyTerm::kReadDelay:
      return "measure for at least 5 s or 32 iterations (measure --repeat, profile --steps)";
    case UncertaintyTerm::kGain:
      return "no repetition removes a source's gain error; compare the device once against an "
             "external meter (--source meter-csv)";
    case UncertaintyTerm::kGaps:
      return "readings were missing (see the warnings): a steadier reader, or a shorter interval";
    case UncertaintyTerm::kEstimateModel:
      return "an estimate: a measured source replaces it (jouleprof sensors lists them)";
    case UncertaintyTerm::kAveraging:
      return "the power reading is a moving average: read the energy counter instead, or measure "
             "for many times its averaging window";
    case UncertaintyTerm::kRepetition:
      return "more repetitions: 4 trials with randomised start delays (measure --repeat), more "
             "steps (profile --steps) or epochs";
  }
  return "";
}

std::optional<std::string> uncertainty_advice(const Profile& p,
                                              const std::optional<EnergyBand>& total_band) {
  // The largest node under the run, other than what no span received, speaks for the tree.
  const ProfileNode* largest = nullptr;
  if (p.tree) {
    for (const ProfileNode& c : p.tree->children) {
      if (c.name == kUnattributedNode || !c.band) continue;
      if (largest == nullptr || c.energy_j > largest->energy_j) largest = &c;
    }
  }
  if (!total_band && largest == nullptr) return std::nullopt;
  std::string text = "uncertainty (95 %):";
  UncertaintyTerm to_shrink = UncertaintyTerm::kGain;
  if (total_band) {
    text +=
        fmt::format(" the total {}, mostly {}", format_uncertainty(total_band, p.total_energy_j()),
                    to_string(total_band->dominant));
    to_shrink = total_band->dominant;
  }
  if (largest != nullptr) {
    text += fmt::format("{} per node mostly {} (largest: {} {})", total_band ? ";" : "",
                        to_string(largest->band->dominant), largest->name,
                        format_uncertainty(largest->band, largest->energy_j));
    to_shrink = largest->band->dominant;  // the figures people read the tree for
  }
  return text + ". To shrink it: " + std::string(shrink_advice(to_shrink)) + ".";
}

}  // namespace jouleprof::report
