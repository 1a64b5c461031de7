// The steps of an attributed run as repetitions (docs/uncertainty.md, "Repetition"): the energy a
// step takes, with the Student-t interval of its mean, and each node's spread over the steps.
#pragma once

#include <cstddef>

#include "jouleprof/attribution.hpp"
#include "jouleprof/profile.hpp"

namespace jouleprof::attribution {

// Below this many steps the Student-t interval of the mean step is wide (t(0.975, 3) = 3.18
// against 1.96 for many): a warning says so.
inline constexpr std::size_t kFewSteps = 5;

// With two or more spans of category kStep, all of one name: the profile's energy_per_step (the
// mean of the steps' attributed energies, repeated_energy's interval) and, on the tree's node of
// those steps and every node below it, energy_stats over the steps (a node absent from a step
// counts 0 J there). The nodes' own figures and intervals stay the attribution's: a sum of
// measured steps is not made uncertain by their spread. `result` is what attributed `profile`.
void summarize_steps(Profile& profile, const AttributionResult& result);

}  // namespace jouleprof::attribution
