// STEP while training runs: each epoch end that the job reports (jouleprof::epoch_end() under
// `jouleprof run --epochs N`, see epoch_file.hpp) closes an epoch whose energy is read off the
// monitor's series, and the projection of the whole run is updated. An epoch begins at the job's
// epoch_begin() when it reported one, else where the previous epoch ended (epoch 1: where the
// run began).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "jouleprof/clock.hpp"
#include "jouleprof/epoch_file.hpp"
#include "jouleprof/monitor.hpp"
#include "jouleprof/result.hpp"
#include "jouleprof/step.hpp"

namespace jouleprof {

struct EpochUpdate {
  int epoch = 0;  // 0-based index of the epoch that just ended
  double energy_j = 0.0;
  TimeNs duration_ns = 0;
  std::uint64_t counter_updates = 0;  // fewest updates of a top-level channel in the epoch
  LiveProjection projection;
};

class LiveEpochProjector {
 public:
  LiveEpochProjector(std::string epoch_file, int total_epochs, StepOptions options = {});

  // Reads the epoch ends reported so far; for every new one, the epoch's energy (top-level energy
  // channels, from `run_begin_ns` or the previous end) and the updated projection. An epoch closes
  // once every counter has been read past its end (an update after it), so the energy printed
  // live is the energy the profile keeps; until then it waits for a later poll.
  Result<std::vector<EpochUpdate>> poll(const Monitor& monitor, TimeNs run_begin_ns);
  // The same from series the caller holds: complete (after the monitor has stopped: the
  // profile's), so every epoch reported closes, or still being read, as the Monitor's are.
  enum class Readings : std::uint8_t { kComplete, kStillComing };
  Result<std::vector<EpochUpdate>> poll(const std::vector<Series>& series, TimeNs run_begin_ns,
                                        Readings readings = Readings::kComplete);

  const StepOptions& options() const { return options_; }

  const std::vector<double>& epoch_energies_j() const { return energies_j_; }
  const std::vector<TimeNs>& epoch_ends_ns() const { return ends_ns_; }
  // Every boundary read so far (begins and ends, file order): what the run's timeline gets as
  // epoch marks.
  const std::vector<EpochBoundary>& boundaries() const { return boundaries_; }

 private:
  std::string epoch_file_;
  int total_epochs_;
  StepOptions options_;
  std::vector<double> energies_j_;
  std::vector<TimeNs> ends_ns_;
  std::vector<EpochBoundary> boundaries_;
};

}  // namespace jouleprof
