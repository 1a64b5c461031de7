// What summarize_epochs (jouleprof/epoch_summary.hpp) rests on: each epoch's window from the
// timeline's epoch marks, the energy of the top-level channels in it and how many counter updates
// that energy rests on.
#pragma once

#include <cstdint>
#include <vector>

#include "jouleprof/epoch_summary.hpp"
#include "jouleprof/profile.hpp"
#include "jouleprof/series.hpp"
#include "training/epoch_log.hpp"

namespace jouleprof {

// The fewest updates any of `series` made in (a, b]: an energy counter's changes of value, a
// power series' samples. 0 when `series` is empty.
std::uint64_t fewest_updates(const std::vector<const Series*>& series, TimeNs a, TimeNs b);

// The profile's top-level energy series (counters and power), those the total adds.
std::vector<const Series*> top_level_energy_series(const Profile& profile);

// The warning for epochs under kMinEpochCounterUpdates updates (`short_epochs`: 0-based
// indices), "" when there are none.
std::string short_epochs_warning(const std::vector<std::size_t>& short_epochs, std::size_t epochs,
                                 const std::vector<const Series*>& series, TimeNs shortest_ns);

}  // namespace jouleprof
