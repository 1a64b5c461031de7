#include "sampling/repeated_energy.hpp"

#include "jouleprof/statistics.hpp"

namespace jouleprof {

std::optional<RepeatedEnergy> repeated_energy(std::span<const Series* const> series,
                                              std::span<const RepetitionWindow> windows,
                                              const std::vector<std::vector<double>>& energy_j) {
  if (windows.empty()) return std::nullopt;
  const double n = static_cast<double>(windows.size());
  std::vector<double> sums(windows.size(), 0.0);
  std::vector<UncertaintyPart> shared;
  std::vector<UncertaintyPart> single_window;
  for (std::size_t c = 0; c < series.size(); ++c) {
    const std::vector<double>& per_repetition = energy_j.at(c);
    double mean = 0.0;
    for (std::size_t r = 0; r < windows.size(); ++r) {
      sums[r] += per_repetition.at(r);
      mean += per_repetition[r] / n;
    }
    const std::vector<UncertaintyPart> source =
        shared_channel_uncertainty(series[c]->channel(), mean);
    const std::vector<UncertaintyPart> lag =
        repeating_window_uncertainty(*series[c], windows, per_repetition);
    shared.insert(shared.end(), source.begin(), source.end());
    shared.insert(shared.end(), lag.begin(), lag.end());
    if (windows.size() == 1) {
      for (const UncertaintyPart& part : window_uncertainty(
               *series[c], windows.front().begin_ns, windows.front().end_ns, per_repetition[0])) {
        if (!repeats_alike(part.term)) single_window.push_back(part);
      }
    }
  }
  return RepeatedEnergy{summarize(sums), repeated_band(sums, shared, single_window)};
}

}  // namespace jouleprof
