#include "export/rank_shares.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace jouleprof::cluster {
namespace {

// The claims of one host's ranks before they are fitted to the host's energy.
std::vector<double> unfitted_claims(const std::vector<RankClaim>& claims,
                                    const std::vector<std::size_t>& ranks, double host_j,
                                    const std::string& host, std::vector<std::string>& warnings) {
  std::vector<double> claimed;
  bool all_observed = true;
  double machine_sum = 0.0;
  for (const std::size_t r : ranks) {
    all_observed = all_observed && claims[r].observed_j.has_value();
    machine_sum += claims[r].machine_j;
  }
  if (all_observed || ranks.size() == 1) {
    for (const std::size_t r : ranks)
      claimed.push_back(claims[r].observed_j.value_or(claims[r].machine_j));
    return claimed;
  }
  warnings.push_back(fmt::format(
      "{} ranks on {} and not every one has its processes' share (no process source): the "
      "host's energy is split among them in proportion to their own totals",
      ranks.size(), host));
  for (const std::size_t r : ranks) {
    claimed.push_back(machine_sum > 0.0 ? host_j * claims[r].machine_j / machine_sum
                                        : host_j / static_cast<double>(ranks.size()));
  }
  return claimed;
}

}  // namespace

HostDivision divide_host_energy(const std::vector<RankClaim>& claims,
                                const std::map<std::string, double>& host_energy_j) {
  HostDivision division;
  division.rank_j.assign(claims.size(), 0.0);
  std::map<std::string, std::vector<std::size_t>> ranks_of_host;
  for (std::size_t r = 0; r < claims.size(); ++r) ranks_of_host[claims[r].host].push_back(r);
  for (const auto& [host, ranks] : ranks_of_host) {
    const auto found = host_energy_j.find(host);
    const double host_j = found == host_energy_j.end() ? 0.0 : found->second;
    const std::vector<double> claimed =
        unfitted_claims(claims, ranks, host_j, host, division.warnings);
    double sum = 0.0;
    for (const double j : claimed) sum += j;
    double scale = 1.0;
    if (sum > host_j && sum > 0.0) {
      scale = host_j / sum;
      if (scale < 0.99) {
        division.warnings.push_back(fmt::format(
            "the ranks on {} claim {:.6g} J, {:.1f} % more than its counters measured ({:.6g} "
            "J): their shares are scaled down to it",
            host, sum, 100.0 * (sum / host_j - 1.0), host_j));
      }
    }
    double given = 0.0;
    for (std::size_t k = 0; k < ranks.size(); ++k) {
      division.rank_j[ranks[k]] = claimed[k] * scale;
      given += claimed[k] * scale;
    }
    division.others_j[host] = std::max(0.0, host_j - given);
    division.share_scale[host] = scale;
  }
  return division;
}

}  // namespace jouleprof::cluster
