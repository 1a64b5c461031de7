// How a cumulative energy counter is read between its readings: the one rule behind
// Series::energy_between_j (the Monitor's totals, Profile::total_energy_j) and attribution's
// EnergyCurve, so that a profile's tree and its total agree.
#pragma once

#include <cstddef>
#include <vector>

#include "jouleprof/clock.hpp"
#include "jouleprof/series.hpp"

namespace jouleprof {

// The readings at which a counter's value is known fresh: the first reading, and the updates (a
// value that differs from the previous reading); of changes at one instant, the first. (Holding
// the counter before its first update lost up to one update of energy at a window that starts on
// the series' first reading: an idle baseline 4 % low.)
// A stale repeat between two knots says nothing new.
std::vector<std::size_t> counter_knots(const Series& counter);

// The counter at t: linear between the knots around t, held at the first knot's value before it
// and at the last's after it (energy outside the knots is not known, so it is not invented).
double counter_value_at(const Series& counter, TimeNs t);

}  // namespace jouleprof
