// samples.csv: every reading of a run in a plain text file that any tool can read.
//
//   # jouleprof samples 1
//   # channel rapl:package-0 source=rapl-powercap device=cpu0 domain=package kind=energy_j
//   provenance=measured parent= nominal_period_ns=1000000 measured_period_ns=1000212
//   detail=powercap%20energy_uj # gap rapl:package-0 begin_ns=… end_ns=… reason=permission%20denied
//   t_ns,channel,kind,value
//   1234567890,rapl:package-0,energy_j,12.5
//
// `# channel` lines describe each channel (values percent-encoded: space, comma, '%', '=', tab,
// CR and LF as %XX); `# gap` lines list intervals that could not be read. Data lines follow the
// header, channel by channel, each in time order; t_ns is CLOCK_MONOTONIC nanoseconds, kind is
// energy_j (cumulative joules), power_w, temperature_c, utilisation or busy_s (cumulative seconds
// of work: CPU time, a GPU's busy time). Values are written with
// the shortest text that reads back to the same double, so a round trip is exact.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "jouleprof/result.hpp"
#include "jouleprof/series.hpp"

namespace jouleprof {

Status write_samples_csv(const std::vector<Series>& series, const std::string& path);

// Channels without a `# channel` line get their id and kind from the data and provenance
// imported. Errors name the file, the line and the field. Readings that cannot be true (a counter
// stepping back or jumping to 1e308 J) become gaps, each channel's said in `warnings` when given
// (sources/plausibility.hpp, the rule every reader keeps).
Result<std::vector<Series>> read_samples_csv(const std::string& path,
                                             std::vector<std::string>* warnings = nullptr);
Result<std::vector<Series>> parse_samples_csv(std::string_view text, const std::string& origin,
                                              std::vector<std::string>* warnings = nullptr);

}  // namespace jouleprof
