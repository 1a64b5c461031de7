// The promises every importer makes about the series it returns (docs/bad-input.md): finite
// values in time order, and cumulative counters that never go backwards. A harness aborts when
// one is broken, so that libFuzzer reports the input.
#pragma once

#include <cmath>
#include <cstdlib>
#include <vector>

#include "jouleprof/series.hpp"

namespace jouleprof::fuzz {

inline void check_series(const Series& s) {
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (!std::isfinite(s[i].value)) std::abort();
    if (i == 0) continue;
    if (s[i].t_ns < s[i - 1].t_ns) std::abort();
    if (s.channel().kind == ChannelKind::kEnergyCounter && s[i].value < s[i - 1].value)
      std::abort();
  }
  const double total = s.total_energy_j();
  if (!std::isfinite(total)) std::abort();
  if (s.channel().kind == ChannelKind::kEnergyCounter && total < 0.0) std::abort();
}

inline void check_series(const std::vector<Series>& all) {
  for (const Series& s : all) check_series(s);
}

}  // namespace jouleprof::fuzz
