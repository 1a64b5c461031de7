// Power logs: recorded power/energy traces from nvidia-smi CSV logs, `perf stat -I` output and
// Monsoon-style meter CSVs. Each reader returns Series on the monotonic axis, labelled imported,
// with the file path, the parsing rules applied and the time offset used in the provenance detail.
//
//   PowerLogOptions options;
//   options.offset_ns = anchor.monotonic_ns - anchor.realtime_ns;  // wall clock -> this run's axis
//   JP_TRY(PowerLog trace, read_nvidia_smi_log("gpu-power.csv", options));
//
// Time mapping: a trace's own clock (wall-clock stamps as realtime ns, interpreted with
// `utc_offset_s`; perf's seconds since its start plus the start time) plus `offset_ns` gives the
// monotonic time. `first_sample_at_ns`, when set, instead chooses the offset that puts the first
// sample at that monotonic time (replaying a trace "from now").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "jouleprof/clock.hpp"
#include "jouleprof/result.hpp"
#include "jouleprof/series.hpp"
#include "sources/backends.hpp"

namespace jouleprof {

struct PowerLogOptions {
  // Seconds east of UTC of the clock that wrote wall-clock stamps without a zone (nvidia-smi,
  // the seaa2023 logs). 0 reads them as UTC; a log written in CET would need 3600.
  std::int64_t utc_offset_s = 0;
  TimeNs offset_ns = 0;                      // trace clock + offset_ns = monotonic
  std::optional<TimeNs> first_sample_at_ns;  // overrides offset_ns: first sample lands here
  // Two samples further apart than both gap_factor × the median interval and min_gap_ns bound a
  // gap: nothing is integrated across it (DESIGN rule 6: no fabricated values). The floor keeps
  // bursty host timestamps (a Monsoon meter delivers ~128 samples every ~26 ms) from reading as
  // gaps.
  double gap_factor = 5.0;
  TimeNs min_gap_ns = kNsPerS;
  // nvidia-smi logs written with `--format=csv,noheader`: the --query-gpu columns, in order.
  // Default: FECoM's `timestamp,power.draw,temperature.gpu`.
  std::vector<std::string> noheader_columns = {"timestamp", "power.draw", "temperature.gpu"};
  // perf stat -I: the realtime ns at which perf started. Default: the "# started on" header
  // (second resolution, read with utc_offset_s); 0 when neither is known.
  std::optional<TimeNs> perf_start_realtime_ns;
};

struct PowerLog {
  std::string path;
  std::string format;                 // "nvidia-smi", "perf-stat", "meter-csv"
  std::vector<Series> series;         // power/energy first, then utilisation and temperature
  TimeNs offset_ns = 0;               // the offset actually used (trace clock + offset = monotonic)
  std::vector<std::string> warnings;  // rules that changed or dropped data, with file:line

  // The first series of this kind (power or counter, utilisation, temperature); null if none.
  const Series* find(ChannelKind kind) const;
};

// `nvidia-smi --query-gpu=timestamp,power.draw,… --format=csv[,noheader][,nounits]`. Header
// variants: nvidia-smi's own (`power.draw [W]`) and seaa2023's (`gpu_power_draw`). Unit suffixes
// (`119.17 W`, `0 %`, `MiB`) are stripped; `[N/A]`-style values leave the sample out with a
// warning; an unterminated last line that does not parse completely is dropped as truncated.
// With an `index` column, each GPU gets its own series.
Result<PowerLog> read_nvidia_smi_log(const std::string& path, const PowerLogOptions& options);

// `perf stat -I N -x ';' -e power/energy-…/` output: Joules per interval per event, turned into
// one cumulative energy counter per event starting at 0 J at perf's start. The last interval is
// usually partial (perf stopped early): its stamp is its true end, so the counter stays exact.
Result<PowerLog> read_perf_stat_log(const std::string& path, const PowerLogOptions& options);

// Meter CSV `Time(ms),Main(mA),Main Voltage(V),`: power = mA × V / 1000 W. The Monsoon export
// labels its time column ms but writes epoch microseconds; a time above 1e14 is read as µs
// (since 1970 that is > 3 years in ms, < 2 years in µs — no real recording is ambiguous).
Result<PowerLog> read_meter_csv(const std::string& path, const PowerLogOptions& options);

// Picks the reader from the file's first line.
Result<PowerLog> read_power_log(const std::string& path, PowerLogFormat format,
                                const PowerLogOptions& options);

// Realtime ns of a wall-clock stamp `YYYY-MM-DD hh:mm:ss[.frac]` (also `/` date separators and
// `T`), read as local time at utc_offset_s. Exposed for the other logs of a run (memory logs).
std::optional<TimeNs> parse_wall_clock_ns(std::string_view text, std::int64_t utc_offset_s);

}  // namespace jouleprof
