// EpochLog: where each epoch of a training run begins and ends on the monotonic axis, and how that
// was learnt — from `epoch_begin`/`epoch_end` marks recorded live, from a CSV of end times, or
// (when only the count and the duration are known, as in the seaa2023 data) an equal split, which
// outputs must state.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "jouleprof/clock.hpp"
#include "jouleprof/epoch_file.hpp"
#include "jouleprof/epoch_start.hpp"
#include "jouleprof/result.hpp"
#include "jouleprof/timeline.hpp"

namespace jouleprof {

enum class EpochOrigin { kMarks, kCsv, kEqualSplit };
std::string_view to_string(EpochOrigin origin);

struct EpochLog {
  TimeNs begin_ns = 0;         // start of epoch 1
  std::vector<TimeNs> end_ns;  // end of each epoch, increasing
  // The start of each epoch when the job marked them (epoch_begin): time between an epoch's end
  // and the next one's begin (evaluation, checkpoints) belongs to no epoch. Empty: each epoch
  // starts where the previous one ended.
  std::vector<TimeNs> epoch_begins_ns;
  EpochOrigin origin = EpochOrigin::kEqualSplit;
  EpochStart first_start = EpochStart::kGiven;
  std::string note;  // how the boundaries were obtained, for the output

  std::size_t size() const { return end_ns.size(); }
  TimeNs epoch_begin_ns(std::size_t e) const {
    if (!epoch_begins_ns.empty()) return epoch_begins_ns[e];
    return e == 0 ? begin_ns : end_ns[e - 1];
  }
  double epoch_duration_s(std::size_t e) const { return ns_to_s(end_ns[e] - epoch_begin_ns(e)); }
};

inline constexpr std::string_view kEpochBeginMarkName = "epoch_begin";
inline constexpr std::string_view kEpochEndMarkName = "epoch_end";
inline constexpr std::string_view kTrainBeginMarkName = "train_begin";

// Epochs from boundaries in any order: each end closes an epoch, which began at the first begin
// after the previous end, else at the previous end. Epoch 1 without a begin starts at
// `training_start_ns` when that lies before its end (EpochStart `training_start`: the first step
// or a train_begin mark), else at `run_begin_ns` (kRunStart). Boundaries before `run_begin_ns`
// are ignored. An error when no epoch ends after `run_begin_ns`.
Result<EpochLog> epochs_from_boundaries(std::vector<EpochBoundary> boundaries,
                                        std::optional<TimeNs> training_start_ns,
                                        TimeNs run_begin_ns,
                                        EpochStart training_start = EpochStart::kFirstStep);

// Epochs from the `epoch_begin`/`epoch_end` marks of a timeline (jouleprof::epoch_begin(),
// epoch_end(); jp_epoch_*) as epochs_from_boundaries; the training starts at its first
// `train_begin` mark (jouleprof::mark), else at its first step span (category step).
Result<EpochLog> epochs_from_marks(const Timeline& timeline, TimeNs run_begin_ns);

// CSV with a header and one row per epoch: `epoch,end_s` — the end of each epoch in seconds
// after `training_begin_ns`. Rows must be in epoch order, numbered from 1 (or all from 0), with
// increasing times.
Result<EpochLog> read_epochs_csv(const std::string& path, TimeNs training_begin_ns);

// N epochs of equal length over [begin_ns, end_ns].
Result<EpochLog> equal_split_epochs(TimeNs begin_ns, TimeNs end_ns, int epochs);

}  // namespace jouleprof
