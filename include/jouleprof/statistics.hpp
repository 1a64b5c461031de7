// Small statistics every part needs: summaries of repeated measurements and agreement between runs.
#pragma once

#include <optional>
#include <span>

#include "jouleprof/profile.hpp"

namespace jouleprof {

// Mean, median, sample stdev and the Student-t 95 % confidence interval of the mean.
// n = 0 gives all zeros; n = 1 gives a zero-width interval.
RepetitionStats summarize(std::span<const double> values);

// Two-sided Student-t critical value for 95 % confidence with `dof` degrees of freedom.
double student_t_95(unsigned dof);

// Pearson correlation; nullopt when fewer than two pairs or either side has no variance.
std::optional<double> pearson_r(std::span<const double> x, std::span<const double> y);

}  // namespace jouleprof
