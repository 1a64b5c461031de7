#include "jouleprof/live_epochs.hpp"

#include <algorithm>

#include "jouleprof/epoch_file.hpp"
#include "training/epoch_energy.hpp"
#include "training/epoch_log.hpp"
#include "training/epoch_summary.hpp"

namespace jouleprof {
namespace {

// A counter that has not moved for this long after an epoch's end is read as it stands.
constexpr TimeNs kStalledCounterNs = kNsPerS;

// Whether the energy up to `end_ns` reads off `s` as it finally will. A counter's value between
// readings is interpolated to its next update, so until an update after `end_ns` has been read
// the epoch's energy is provisional (the sampler may read a little after the job reported the
// end); a power channel needs a reading at or after `end_ns`.
bool read_past(const Series& s, TimeNs end_ns) {
  if (s.empty() || s.back().t_ns < end_ns) return false;
  if (s.channel().kind != ChannelKind::kEnergyCounter) return true;
  const std::size_t after = s.lower_bound(end_ns + 1);  // the first reading after end_ns
  if (after == 0) return true;  // no reading at or before the end among these: none to compare
  const double at_end = s[after - 1].value;
  return s.back().value != at_end || s.back().t_ns - end_ns >= kStalledCounterNs;
}

}  // namespace

LiveEpochProjector::LiveEpochProjector(std::string epoch_file, int total_epochs,
                                       StepOptions options)
    : epoch_file_(std::move(epoch_file)), total_epochs_(total_epochs), options_(options) {}

Result<std::vector<EpochUpdate>> LiveEpochProjector::poll(const Monitor& monitor,
                                                          TimeNs run_begin_ns) {
  return poll(monitor.recent(ends_ns_.empty() ? run_begin_ns : ends_ns_.back()), run_begin_ns,
              Readings::kStillComing);
}

Result<std::vector<EpochUpdate>> LiveEpochProjector::poll(const std::vector<Series>& series,
                                                          TimeNs run_begin_ns, Readings readings) {
  JP_TRY(boundaries_, read_epoch_file(epoch_file_));
  std::vector<EpochUpdate> updates;
  const Result<EpochLog> log = epochs_from_boundaries(boundaries_, std::nullopt, run_begin_ns);
  if (!log || log->size() <= ends_ns_.size()) return updates;
  std::vector<const Series*> energy_series;
  for (const Series& s : series) {
    if (s.channel().carries_energy() && s.channel().is_top_level()) energy_series.push_back(&s);
  }
  for (std::size_t e = ends_ns_.size(); e < log->size(); ++e) {
    const TimeNs begin = log->epoch_begin_ns(e);
    const TimeNs end = log->end_ns[e];
    if (readings == Readings::kStillComing &&
        !std::all_of(energy_series.begin(), energy_series.end(),
                     [end](const Series* s) { return read_past(*s, end); })) {
      break;  // the next poll closes it, with the same energy the profile will hold
    }
    // A gap is no reading, not 0 W: its time gets its epoch's mean power, as project does (the
    // series' mean, read only for an epoch wholly in a gap).
    double energy = 0.0;
    for (const Series* s : energy_series) {
      GapFilledEnergy filled = energy_with_gaps_filled(*s, begin, end, 0.0);
      if (filled.gap_s > 0.0 && filled.filled_j == 0.0) {
        filled = energy_with_gaps_filled(*s, begin, end, mean_power_outside_gaps_w(*s));
      }
      energy += filled.energy_j;
    }
    energies_j_.push_back(energy);
    ends_ns_.push_back(end);
    JP_TRY(LiveProjection projection, project_live(energies_j_, total_epochs_, options_));
    updates.push_back(EpochUpdate{static_cast<int>(e), energy, end - begin,
                                  fewest_updates(energy_series, begin, end), projection});
  }
  return updates;
}

}  // namespace jouleprof
