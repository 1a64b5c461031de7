// Readers for the recordings `jouleprof attribute` takes besides samples.csv and traces:
//  - an NVML poll log (`t_ns,instant_mw,instant_nvml_ts_us,avg_mw,energy_mj`, energy -1 where the
//    counter was not read; data/h200/nvml_fast.csv),
//  - a recording's metadata JSON (`anchor_realtime_ns`, `anchor_monotonic_ns`, `marks`:
//    [[name, t_ns on CLOCK_MONOTONIC], …]; data/h200/meta_fold.json).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "jouleprof/clock.hpp"
#include "jouleprof/result.hpp"
#include "jouleprof/series.hpp"

namespace jouleprof::attribution {

// Three channels on `device`: "nvml:<device>:energy" (cumulative J from energy_mj, the rows that
// read it), "nvml:<device>:instant" (field 186, W) and "nvml:<device>:average" (GetPowerUsage, W).
// Only the energy channel is top level; the two power channels nest in it, so totals never add
// them.
// Implausible readings become gaps, said in `warnings` when given.
Result<std::vector<Series>> read_nvml_poll_csv(const std::string& path,
                                               const std::string& device = "gpu0",
                                               std::vector<std::string>* warnings = nullptr);

// samples.csv (jouleprof's format) or an NVML poll log, told apart by the header line.
Result<std::vector<Series>> read_energy_samples(const std::string& path,
                                                std::vector<std::string>* warnings = nullptr);

struct RecordingMeta {
  std::optional<ClockAnchor> anchor;
  std::vector<std::pair<std::string, TimeNs>> marks;  // CLOCK_MONOTONIC
};

Result<RecordingMeta> read_recording_meta(const std::string& path);

}  // namespace jouleprof::attribution
