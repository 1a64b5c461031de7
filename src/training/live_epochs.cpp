#include "jouleprof/live_epochs.hpp"

#include "jouleprof/epoch_file.hpp"

namespace jouleprof {

LiveEpochProjector::LiveEpochProjector(std::string epoch_file, int total_epochs,
                                       StepOptions options)
    : epoch_file_(std::move(epoch_file)), total_epochs_(total_epochs), options_(options) {}

Result<std::vector<EpochUpdate>> LiveEpochProjector::poll(const Monitor& monitor,
                                                          TimeNs run_begin_ns) {
  return poll(monitor.recent(ends_ns_.empty() ? run_begin_ns : ends_ns_.back()), run_begin_ns);
}

Result<std::vector<EpochUpdate>> LiveEpochProjector::poll(const std::vector<Series>& series,
                                                          TimeNs run_begin_ns) {
  JP_TRY(const std::vector<TimeNs> ends, read_epoch_file(epoch_file_));
  std::vector<EpochUpdate> updates;
  if (ends.size() <= ends_ns_.size()) return updates;
  for (std::size_t e = ends_ns_.size(); e < ends.size(); ++e) {
    const TimeNs begin = e == 0 ? run_begin_ns : ends[e - 1];
    double energy = 0.0;
    for (const Series& s : series) {
      if (s.channel().carries_energy() && s.channel().is_top_level()) {
        energy += s.energy_between_j(begin, ends[e]);
      }
    }
    energies_j_.push_back(energy);
    ends_ns_.push_back(ends[e]);
    JP_TRY(LiveProjection projection, project_live(energies_j_, total_epochs_, options_));
    updates.push_back(EpochUpdate{static_cast<int>(e), energy, ends[e] - begin, projection});
  }
  return updates;
}

}  // namespace jouleprof
