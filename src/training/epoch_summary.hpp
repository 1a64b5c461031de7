// The epochs of a run as a profile holds them (Profile::epochs): each epoch's window from the
// timeline's epoch_begin / epoch_end marks, the energy of the top-level channels in it and how
// many counter updates that energy rests on — what `jouleprof run` and `report` list per epoch.
#pragma once

#include <cstdint>
#include <vector>

#include "jouleprof/profile.hpp"
#include "jouleprof/series.hpp"
#include "training/epoch_log.hpp"

namespace jouleprof {

// The fewest updates any of `series` made in (a, b]: an energy counter's changes of value, a
// power series' samples. 0 when `series` is empty.
std::uint64_t fewest_updates(const std::vector<const Series*>& series, TimeNs a, TimeNs b);

// The profile's top-level energy series (counters and power), those the total adds.
std::vector<const Series*> top_level_energy_series(const Profile& profile);

// Fills profile.epochs from the timeline's epoch marks (epochs_from_marks from the run's begin)
// and adds a warning for each thing a reader must know: epochs shorter than
// kMinEpochCounterUpdates counter updates (and what to do), an epoch 1 counted from the start of
// the run, epochs the series do not cover. Without epoch_end marks nothing changes.
void summarize_epochs(Profile& profile);

// The warning for epochs under kMinEpochCounterUpdates updates (`short_epochs`: 0-based
// indices), "" when there are none.
std::string short_epochs_warning(const std::vector<std::size_t>& short_epochs, std::size_t epochs,
                                 const std::vector<const Series*>& series, TimeNs shortest_ns);

}  // namespace jouleprof
