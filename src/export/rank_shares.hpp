// How a host's measured energy is divided among the ranks of a job that ran on it
// (docs/cluster.md, "A rank's energy"). Every rank on a host reads the same counters, so each
// rank's own total is the whole machine's; what belongs to a rank is its processes' attributed
// share (docs/sharing.md), and what no rank's processes had stays the host's.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace jouleprof::cluster {

struct RankClaim {
  std::string label;  // "r<rank>", for the warnings
  std::string host;
  double machine_j = 0.0;            // the rank's own total: every counter it read
  std::optional<double> observed_j;  // its processes' share (Profile::total_process_energy_j)
};

struct HostDivision {
  std::vector<double> rank_j;              // per claim, in its order
  std::map<std::string, double> others_j;  // per host: its energy that no rank's processes had
  // Per host: what its ranks' shares were multiplied by to fit its energy (1: they fitted).
  std::map<std::string, double> share_scale;
  std::vector<std::string> warnings;
};

// A rank's energy is its observed share. Where a host has several ranks and one of them has no
// share (no process source, an old profile), the host's energy is split among them in proportion
// to their own totals, with a warning; a host's lone rank without a share gets the whole host.
// Shares that add up to more than the host measured (their windows differ a little) are scaled
// down to it, with a warning when that is more than 1 %.
HostDivision divide_host_energy(const std::vector<RankClaim>& claims,
                                const std::map<std::string, double>& host_energy_j);

}  // namespace jouleprof::cluster
