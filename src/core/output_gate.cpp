#include "core/output_gate.hpp"

#include <algorithm>
#include <limits>

#include "core/figure_bounds.hpp"
#include "core/unread_channel.hpp"

namespace jouleprof {

namespace {

void withhold_implausible_figures(Profile& profile) {
  constexpr double kWithheld = std::numeric_limits<double>::quiet_NaN();
  const auto energy = [&](double& j) {
    if (!plausible(FigureKind::kEnergyChange, j)) j = kWithheld;
  };
  const auto power = [&](double& w) {
    if (!plausible(FigureKind::kPowerChange, w)) w = kWithheld;
  };
  if (profile.tree) {
    walk_tree(*profile.tree, [&](ProfileNode& n, int) {
      energy(n.energy_j);
      energy(n.self_energy_j);
      if (n.static_energy_j) energy(*n.static_energy_j);
      if (n.dynamic_energy_j) energy(*n.dynamic_energy_j);
      for (auto& [channel, j] : n.energy_by_channel_j) energy(j);
      if (n.band && !(plausible(FigureKind::kEnergyChange, n.band->low_j) &&
                      plausible(FigureKind::kEnergyChange, n.band->high_j))) {
        n.band.reset();
      }
    });
  }
  for (ChannelSummary& c : profile.channels) {
    if (has_no_reading(profile, c)) c.energy_j = c.mean_power_w = kWithheld;
    energy(c.energy_j);
    if (c.net_energy_j) energy(*c.net_energy_j);
    power(c.mean_power_w);
    power(c.peak_power_w);
  }
}

}  // namespace

std::optional<Profile> withheld_for_output(const Profile& profile) {
  std::vector<std::string> problems = figure_problems(profile);
  if (problems.empty()) return std::nullopt;
  Profile flagged = profile;
  withhold_implausible_figures(flagged);
  // A withheld figure is NaN from here on, a problem of its own ("not finite") once the profile is
  // read back: it is warned of now, beside the reason it was withheld, so that the profile as
  // written holds a warning for every problem it has, and a second write adds none (a tree that
  // does not sum is warned of, not withheld, and must not be repeated either).
  for (std::string& p : figure_problems(flagged)) problems.push_back(std::move(p));
  for (std::string& p : problems) {
    if (std::find(flagged.warnings.begin(), flagged.warnings.end(), p) == flagged.warnings.end())
      flagged.warnings.push_back(std::move(p));
  }
  return flagged;
}

}  // namespace jouleprof
