#include "training/epoch_summary.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "sampling/counter_uncertainty.hpp"
#include "sampling/repeated_energy.hpp"
#include "training/epoch_energy.hpp"

namespace jouleprof {
namespace {

// Epoch numbers listed in a warning before "and N more".
constexpr std::size_t kListedEpochs = 6;

std::string counter_periods(const std::vector<const Series*>& series) {
  std::string out;
  for (const Series* s : series) {
    const TimeNs period = s->measured_update_period_ns();
    out += fmt::format("{}{} every {:.3g} ms", out.empty() ? "" : ", ", s->channel().id,
                       static_cast<double>(period) / 1e6);
  }
  return out;
}

// Each channel's energy per epoch, as epoch_energies sums them.
std::vector<std::vector<double>> energy_per_channel(const std::vector<const Series*>& series,
                                                    const EpochLog& log) {
  std::vector<std::vector<double>> out;
  for (const Series* s : series) {
    Result<EpochEnergies> own = epoch_energies({s}, log);
    out.push_back(own ? own->energy_j : std::vector<double>(log.size(), 0.0));
  }
  return out;
}

// An epoch's interval: each channel's terms over the epoch's window (channel_uncertainty), the
// channels (different devices) independent.
std::optional<EnergyBand> epoch_band(const std::vector<const Series*>& series,
                                     const std::vector<std::vector<double>>& energy_j,
                                     std::size_t epoch, TimeNs begin_ns, TimeNs end_ns) {
  std::optional<EnergyBand> band;
  double sum_j = 0.0;
  for (std::size_t c = 0; c < series.size(); ++c) {
    const double e = energy_j[c][epoch];
    const EnergyBand own =
        combine_uncertainty(e, channel_uncertainty(*series[c], begin_ns, end_ns, e));
    band = band ? add_independent_bands(sum_j, *band, e, own) : own;
    sum_j += e;
  }
  return band;
}

}  // namespace

std::uint64_t fewest_updates(const std::vector<const Series*>& series, TimeNs a, TimeNs b) {
  std::optional<std::uint64_t> fewest;
  for (const Series* s : series) {
    std::uint64_t updates = 0;
    const bool counter = s->channel().kind == ChannelKind::kEnergyCounter;
    for (std::size_t i = std::max<std::size_t>(1, s->lower_bound(a)); i < s->size(); ++i) {
      const Sample& now = (*s)[i];
      if (now.t_ns > b) break;
      if (now.t_ns <= a) continue;
      if (!counter || now.value != (*s)[i - 1].value) ++updates;
    }
    fewest = std::min(fewest.value_or(updates), updates);
  }
  return fewest.value_or(0);
}

std::vector<const Series*> top_level_energy_series(const Profile& profile) {
  std::vector<const Series*> out;
  for (const Series& s : profile.series) {
    if (s.channel().carries_energy() && s.channel().is_top_level()) out.push_back(&s);
  }
  return out;
}

std::string short_epochs_warning(const std::vector<std::size_t>& short_epochs, std::size_t epochs,
                                 const std::vector<const Series*>& series, TimeNs shortest_ns) {
  if (short_epochs.empty()) return "";
  std::string list;
  for (std::size_t i = 0; i < short_epochs.size() && i < kListedEpochs; ++i)
    list += fmt::format("{}{}", i == 0 ? "" : ", ", short_epochs[i] + 1);
  if (short_epochs.size() > kListedEpochs)
    list += fmt::format(" and {} more", short_epochs.size() - kListedEpochs);
  return fmt::format(
      "{} {} of {} {} shorter than {} counter updates ({}; the shortest lasted {:.3g} ms): "
      "such an epoch's energy is mostly the counter's resolution, not the work. Make the epochs "
      "longer (more steps in each), or mark every few epochs as one",
      short_epochs.size() == 1 ? "epoch" : "epochs", list, epochs,
      short_epochs.size() == 1 ? "is" : "are", kMinEpochCounterUpdates, counter_periods(series),
      static_cast<double>(shortest_ns) / 1e6);
}

void summarize_epochs(Profile& profile) {
  // Called again after the timeline gained marks (a pipeline, then its caller), it says each
  // thing once.
  const auto warn = [&profile](std::string warning) {
    if (std::find(profile.warnings.begin(), profile.warnings.end(), warning) ==
        profile.warnings.end())
      profile.warnings.push_back(std::move(warning));
  };
  Result<EpochLog> log = epochs_from_marks(profile.timeline, profile.meta.begin_ns);
  if (!log) return;
  const std::vector<const Series*> series = top_level_energy_series(profile);
  profile.epochs.clear();
  profile.energy_per_epoch.reset();
  if (series.empty()) {
    warn(
        fmt::format("{} epochs were marked, but the profile has no energy channel to measure "
                    "them with",
                    log->size()));
    return;
  }
  Result<EpochEnergies> energies = epoch_energies(series, *log);
  if (!energies) {
    warn("epochs: " + energies.error().message());
    return;
  }
  std::vector<std::size_t> short_epochs;
  TimeNs shortest_ns = 0;
  const std::vector<std::vector<double>> per_channel = energy_per_channel(series, *log);
  std::vector<RepetitionWindow> windows;
  for (std::size_t e = 0; e < log->size(); ++e) {
    EpochSummary summary{log->epoch_begin_ns(e), log->end_ns[e], energies->energy_j[e],
                         fewest_updates(series, log->epoch_begin_ns(e), log->end_ns[e])};
    summary.band = epoch_band(series, per_channel, e, summary.begin_ns, summary.end_ns);
    if (summary.band) {
      // The channels' sum, added in another order, may differ from the epoch's in the last bit.
      summary.band->low_j = std::min(summary.band->low_j, summary.energy_j);
      summary.band->high_j = std::max(summary.band->high_j, summary.energy_j);
    }
    windows.push_back({summary.begin_ns, summary.end_ns});
    if (summary.counter_updates < kMinEpochCounterUpdates) {
      shortest_ns = short_epochs.empty() ? summary.duration_ns()
                                         : std::min(shortest_ns, summary.duration_ns());
      short_epochs.push_back(e);
    }
    profile.epochs.push_back(summary);
  }
  if (log->size() >= 2) profile.energy_per_epoch = repeated_energy(series, windows, per_channel);
  profile.meta.options.epochs.first_begin = log->first_start;
  if (log->first_start == EpochStart::kRunStart) {
    warn(
        "epoch 1 is counted from the start of the run (no epoch_begin, train_begin mark or step "
        "came before its "
        "end), so the program's start-up is part of it: call epoch_begin() (jp_epoch_begin, "
        "jouleprof.epoch_begin) where training starts");
  }
  for (const std::string& w : energies->warnings) warn("epochs: " + w);
  const std::string short_warning =
      short_epochs_warning(short_epochs, log->size(), series, shortest_ns);
  if (!short_warning.empty()) warn(short_warning);
}

}  // namespace jouleprof
