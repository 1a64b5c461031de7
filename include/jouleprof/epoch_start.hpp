// EpochStart: where the first epoch of a training run began. Recorded in profiles by its
// description (meta.options "epochs.first_begin": "the first epoch_begin", …).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace jouleprof {

// At a given time (a CSV's origin, an equal split's start), at the first epoch_begin, at a mark
// named "train_begin", at the first step, or — when the job marked none of them — at the start of
// the run, so that its start-up (an interpreter's import, a model's load) counts in epoch 1.
enum class EpochStart : std::uint8_t {
  kGiven = 0,
  kBeginMark = 1,
  kTrainBegin = 2,
  kFirstStep = 3,
  kRunStart = 4,
};
std::string_view to_string(EpochStart start);
std::optional<EpochStart> epoch_start_from_string(std::string_view description);

}  // namespace jouleprof
