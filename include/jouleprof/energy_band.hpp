// Every energy figure's 95 % interval (docs/uncertainty.md): the terms it is made of, each a
// half-width in joules, and the rule that combines them. A profile's nodes, channels and total
// carry one; reports print it as "±".
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace jouleprof {

// The standard normal's 97.5 % quantile: a 95 % half-width is this many standard errors.
inline constexpr double kNormal95 = 1.959963984540054;

// What makes a figure uncertain. Fixed names: they are written to profile.json.
enum class UncertaintyTerm : std::uint8_t {
  kGain,           // the source's calibration against true power (NVML ±5 %), one sign per channel
  kQuantisation,   // the counter's unit, at each of the two readings that bound a window
  kWindowEdges,    // the parts of the update intervals cut by the window, interpolated
  kReadDelay,      // a reading is up to an update period stale: the window's ends may lag
  kGaps,           // readings missing inside the window: their energy lies in the device's range
  kEstimateModel,  // an estimate source's own model error (CPU utilisation × TDP)
  kSplit,          // attribution: the split of a counter window between the work inside it
  kRepetition,     // the Student-t interval over repeated steps or runs
  kAveraging,      // a power reading averaged over a window (Channel::averaging_ns) lags the truth
};
inline constexpr std::size_t kUncertaintyTermCount = 9;

std::string_view to_string(UncertaintyTerm term);
std::optional<UncertaintyTerm> uncertainty_term_from_string(std::string_view name);

// One term's contribution to a figure: a symmetric 95 % half-width, and an upward part (energy
// that may be missing from the figure, as in a gap) that only raises the interval's top.
struct UncertaintyPart {
  UncertaintyTerm term = UncertaintyTerm::kGain;
  double half_width_j = 0.0;
  double missing_low_j = 0.0;   // at least this much energy is missing from the figure
  double missing_high_j = 0.0;  // at most this much
};

// The 95 % interval of a figure and the term that dominates it.
struct EnergyBand {
  double low_j = 0.0;
  double high_j = 0.0;
  UncertaintyTerm dominant = UncertaintyTerm::kGain;

  double half_width_j() const { return 0.5 * (high_j - low_j); }
  // Half the interval's width relative to `energy_j`; nullopt for a figure of 0 J.
  std::optional<double> relative_half_width(double energy_j) const;
  bool contains(double energy_j) const { return energy_j >= low_j && energy_j <= high_j; }
};

// The combination rule: independent terms add as the root sum of their squares; the missing
// parts shift the interval's ends. The interval holds the figure `energy_j` and never goes
// below 0 J unless the figure does (a battery's discharge).
EnergyBand combine_uncertainty(double energy_j, std::span<const UncertaintyPart> parts);

// The interval of the sum of two figures. Correlated (one channel's nodes, whose gain and split
// err the same way): the ends add, the bound. Independent (different devices, ranks, machines):
// each side's reach below its figure, and above it, adds in squares to the sum of the figures, so
// that the sum's interval holds the sum as each holds its own, lopsided intervals too (a split's
// band reaches far above a small figure and little below it). The dominant term is the wider
// part's.
EnergyBand add_correlated_bands(const EnergyBand& a, const EnergyBand& b);
EnergyBand add_independent_bands(double a_j, const EnergyBand& a, double b_j, const EnergyBand& b);

// Whether a term is alike in every repetition of a measurement, so that repeating does not shrink
// it: a source's gain, an estimate's model error, the read delay and the averaging (each window's
// ends lag the same way behind the truth: a bias, not a spread). The others vary from window to
// window.
bool repeats_alike(UncertaintyTerm term);

// The interval of a mean over repeated measurements of one figure (docs/uncertainty.md,
// "Repetition"): the Student-t interval of the repetitions (kRepetition) with `shared`, the terms
// that repeat alike, for the mean. A single repetition shows no spread: `single_window`, that
// window's varying terms (quantisation, edges, gaps), stands in for it. An empty
// `per_repetition_j` gives an empty interval at 0 J.
EnergyBand repeated_band(std::span<const double> per_repetition_j,
                         std::span<const UncertaintyPart> shared,
                         std::span<const UncertaintyPart> single_window);

}  // namespace jouleprof
