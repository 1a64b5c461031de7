// What dominates a profile's uncertainty and what would shrink it, in one sentence with the
// command (docs/uncertainty.md, "Reading a ±"): the text view prints it under the total, the HTML
// report beside it.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "jouleprof/energy_band.hpp"
#include "jouleprof/profile.hpp"

namespace jouleprof::report {

// How to shrink a term, with the command that does it.
std::string_view shrink_advice(UncertaintyTerm term);

// "uncertainty: the total is ±1.2 %, mostly gain; per node mostly split (largest: encoder ±14 %):
// calibrate …". Nullopt when the profile carries no intervals.
std::optional<std::string> uncertainty_advice(const Profile& profile,
                                              const std::optional<EnergyBand>& total_band);

}  // namespace jouleprof::report
