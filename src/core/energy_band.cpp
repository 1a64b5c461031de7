#include "jouleprof/energy_band.hpp"

#include <array>
#include <cmath>
#include <vector>

#include "jouleprof/statistics.hpp"

namespace jouleprof {

namespace {

constexpr std::array<std::string_view, kUncertaintyTermCount> kTermNames{
    "gain",           "quantisation", "window-edges", "read-delay", "gaps",
    "estimate-model", "split",        "repetition",   "averaging"};

}  // namespace

std::string_view to_string(UncertaintyTerm term) {
  return kTermNames[static_cast<std::size_t>(term)];
}

std::optional<UncertaintyTerm> uncertainty_term_from_string(std::string_view name) {
  for (std::size_t i = 0; i < kTermNames.size(); ++i) {
    if (kTermNames[i] == name) return static_cast<UncertaintyTerm>(i);
  }
  return std::nullopt;
}

std::optional<double> EnergyBand::relative_half_width(double energy_j) const {
  if (energy_j == 0.0) return std::nullopt;
  return half_width_j() / std::abs(energy_j);
}

EnergyBand combine_uncertainty(double energy_j, std::span<const UncertaintyPart> parts) {
  double squares = 0.0;
  double missing_low = 0.0;
  double missing_high = 0.0;
  double largest = -1.0;
  EnergyBand band;
  for (const UncertaintyPart& p : parts) {
    squares += p.half_width_j * p.half_width_j;
    missing_low += p.missing_low_j;
    missing_high += p.missing_high_j;
    // A missing part weighs as its width: what it can add beyond its least.
    const double size = std::max(p.half_width_j, p.missing_high_j - p.missing_low_j);
    if (size > largest) {
      largest = size;
      band.dominant = p.term;
    }
  }
  const double half = std::sqrt(squares);
  band.low_j = energy_j + missing_low - half;
  band.high_j = energy_j + missing_high + half;
  band.low_j = std::min(band.low_j, energy_j);  // the interval always holds the figure
  if (energy_j >= 0.0) band.low_j = std::max(band.low_j, 0.0);
  return band;
}

namespace {

UncertaintyTerm wider_dominant(const EnergyBand& a, const EnergyBand& b) {
  return a.half_width_j() >= b.half_width_j() ? a.dominant : b.dominant;
}

}  // namespace

EnergyBand add_correlated_bands(const EnergyBand& a, const EnergyBand& b) {
  return {a.low_j + b.low_j, a.high_j + b.high_j, wider_dominant(a, b)};
}

EnergyBand add_independent_bands(double a_j, const EnergyBand& a, double b_j, const EnergyBand& b) {
  const double sum = a_j + b_j;
  const double below = std::hypot(a_j - a.low_j, b_j - b.low_j);
  const double above = std::hypot(a.high_j - a_j, b.high_j - b_j);
  return {sum - below, sum + above, wider_dominant(a, b)};
}

bool repeats_alike(UncertaintyTerm term) {
  return term == UncertaintyTerm::kGain || term == UncertaintyTerm::kEstimateModel ||
         term == UncertaintyTerm::kReadDelay || term == UncertaintyTerm::kAveraging;
}

EnergyBand repeated_band(std::span<const double> per_repetition_j,
                         std::span<const UncertaintyPart> shared,
                         std::span<const UncertaintyPart> single_window) {
  if (per_repetition_j.empty()) return EnergyBand{0.0, 0.0, UncertaintyTerm::kRepetition};
  const RepetitionStats stats = summarize(per_repetition_j);
  std::vector<UncertaintyPart> parts(shared.begin(), shared.end());
  if (stats.n >= 2) {
    parts.push_back({UncertaintyTerm::kRepetition, 0.5 * (stats.ci95_high - stats.ci95_low)});
  } else {
    parts.insert(parts.end(), single_window.begin(), single_window.end());
  }
  return combine_uncertainty(stats.mean, parts);
}

}  // namespace jouleprof
