// The one gap rule: whether a recorded gap and an interval [a, b] share time beyond an end point.
// A reading interval that overlaps a gap bridges readings that are missing (a gap the sampler
// records runs from the last good reading to the next one, so it overlaps exactly the intervals
// it spans; one imported from a file need not lie on readings), so no power is integrated across
// it and the power chart leaves it out; a window that overlaps a gap has lost what the gap held
// and says so. A gap of one instant on an end point loses nothing inside, so it does not overlap.
#pragma once

#include <algorithm>

#include "jouleprof/series.hpp"

namespace jouleprof {

inline bool gap_overlaps(const Gap& gap, TimeNs a, TimeNs b) {
  return gap.begin_ns < b && a < gap.end_ns;
}

// Whether any of the series' recorded gaps overlaps [a, b].
inline bool has_gap_in(const Series& series, TimeNs a, TimeNs b) {
  return std::any_of(series.gaps().begin(), series.gaps().end(),
                     [&](const Gap& g) { return gap_overlaps(g, a, b); });
}

}  // namespace jouleprof
