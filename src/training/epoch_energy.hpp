// Per-epoch energy of a training run from any energy series (counter: interpolated; power: the
// trapezoid rule), and the RAM power model of del Rey et al.: 0.375 W per GB of resident memory.
#pragma once

#include <string>
#include <vector>

#include "jouleprof/result.hpp"
#include "jouleprof/series.hpp"
#include "sources/power_log.hpp"
#include "training/epoch_log.hpp"

namespace jouleprof {

// RAM power per GB of resident memory used by del Rey et al. (METHODS.md §5).
inline constexpr double kRamWattsPerGb = 0.375;

struct EpochEnergies {
  std::vector<double> energy_j;  // one per epoch, all series summed, gaps filled (below)
  // One per epoch: the part of energy_j that fills the power series' gaps. A gap is no reading,
  // not 0 W:
  // its time is given the mean power of the rest of the epoch (of the whole series when the gap
  // covers the epoch), and projections widen their bands by what was filled.
  std::vector<double> filled_j;
  std::vector<double> duration_s;     // one per epoch
  std::vector<std::string> channels;  // the series that were summed, with their provenance
  std::vector<std::string> warnings;  // e.g. epochs that fall (partly) outside a series

  double total_j() const;
};

// The energy of `s` over [a, b] with the time of its gaps filled: a power series' gap gets the
// mean power of the rest of [a, b], or `fallback_w` when the gap covers all of it (counters are
// left as they are: their next reading holds what a gap spent).
struct GapFilledEnergy {
  double energy_j = 0.0;  // measured + filled
  double filled_j = 0.0;
  double gap_s = 0.0;  // seconds of [a, b] in gaps
};
GapFilledEnergy energy_with_gaps_filled(const Series& s, TimeNs a, TimeNs b, double fallback_w,
                                        IntegrationRule rule = IntegrationRule::kTrapezoid);
// The mean power of `s` over the time outside its gaps (0 without any).
double mean_power_outside_gaps_w(const Series& s,
                                 IntegrationRule rule = IntegrationRule::kTrapezoid);

// Sums each series' energy over each epoch. Series must carry energy (counter or power); an
// epoch not covered by a series is a warning, never silently zero; time in a series' gaps is
// filled (EpochEnergies::filled_j), with a warning.
Result<EpochEnergies> epoch_energies(const std::vector<const Series*>& series, const EpochLog& log,
                                     IntegrationRule rule = IntegrationRule::kTrapezoid);

// Process-usage log `timestamp,cpu usage (%),memory usage (MB),temperature (Celsius)` (seaa2023
// cpu-mem-usage-*.csv) turned into modelled RAM power: watts_per_gb × memory GB (1 GB = 1024
// MB). The series is labelled estimated with the model in its detail.
Result<Series> read_ram_power_log(const std::string& path, const PowerLogOptions& options,
                                  double watts_per_gb = kRamWattsPerGb);

}  // namespace jouleprof
