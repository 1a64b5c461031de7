#include "jouleprof/epoch_start.hpp"

namespace jouleprof {

std::string_view to_string(EpochStart start) {
  switch (start) {
    case EpochStart::kGiven:
      return "given";
    case EpochStart::kBeginMark:
      return "the first epoch_begin";
    case EpochStart::kTrainBegin:
      return "the train_begin mark";
    case EpochStart::kFirstStep:
      return "the first step";
    case EpochStart::kRunStart:
      return "the start of the run";
  }
  return "unknown";
}

std::optional<EpochStart> epoch_start_from_string(std::string_view description) {
  for (const EpochStart start :
       {EpochStart::kGiven, EpochStart::kBeginMark, EpochStart::kTrainBegin, EpochStart::kFirstStep,
        EpochStart::kRunStart}) {
    if (to_string(start) == description) return start;
  }
  return std::nullopt;
}

}  // namespace jouleprof
