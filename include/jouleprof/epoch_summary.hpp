// A run's epochs as a profile holds them (Profile::epochs), from the timeline's epoch_begin /
// epoch_end marks: what `jouleprof run` and `report` list per epoch. The pipelines
// (attribute_recording, run_command_measurement) call it; a profile assembled by hand calls it
// once its timeline and series are in place.
#pragma once

#include "jouleprof/profile.hpp"

namespace jouleprof {

// Fills profile.epochs from the timeline's epoch marks (epochs from the run's begin) and adds a
// warning for each thing a reader must know: epochs shorter than kMinEpochCounterUpdates counter
// updates (and what to do), an epoch 1 counted from the start of the run, epochs the series do
// not cover. Without epoch_end marks nothing changes; called again, it recomputes the epochs
// and adds no warning twice.
void summarize_epochs(Profile& profile);

}  // namespace jouleprof
