// EpochLog: where each epoch of a training run ends on the monotonic axis, and how that was
// learnt — from `epoch_end` marks recorded live, from a CSV of end times, or (when only the count
// and the duration are known, as in the seaa2023 data) an equal split, which outputs must state.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "jouleprof/clock.hpp"
#include "jouleprof/result.hpp"
#include "jouleprof/timeline.hpp"

namespace jouleprof {

enum class EpochOrigin { kMarks, kCsv, kEqualSplit };
std::string_view to_string(EpochOrigin origin);

struct EpochLog {
  TimeNs begin_ns = 0;         // start of epoch 0
  std::vector<TimeNs> end_ns;  // end of each epoch, increasing
  EpochOrigin origin = EpochOrigin::kEqualSplit;
  std::string note;  // how the boundaries were obtained, for the output

  std::size_t size() const { return end_ns.size(); }
  TimeNs epoch_begin_ns(std::size_t e) const { return e == 0 ? begin_ns : end_ns[e - 1]; }
  double epoch_duration_s(std::size_t e) const { return ns_to_s(end_ns[e] - epoch_begin_ns(e)); }
};

inline constexpr std::string_view kEpochEndMarkName = "epoch_end";

// Epochs from the `epoch_end` marks of a timeline (jouleprof::epoch_end(), jp_epoch_end()); the
// first epoch begins at `training_begin_ns`.
Result<EpochLog> epochs_from_marks(const Timeline& timeline, TimeNs training_begin_ns);

// CSV with a header and one row per epoch: `epoch,end_s` — the end of each epoch in seconds
// after `training_begin_ns`. Rows must be in epoch order with increasing times.
Result<EpochLog> read_epochs_csv(const std::string& path, TimeNs training_begin_ns);

// N epochs of equal length over [begin_ns, end_ns].
Result<EpochLog> equal_split_epochs(TimeNs begin_ns, TimeNs end_ns, int epochs);

}  // namespace jouleprof
