// Counter plausibility: the one judgement of whether a reading can be true, used by every live
// source (through the sampler and the wrap test of EnergyAccumulator) and every importer.
//
//   ReadingJudge judge(series.channel());
//   ReadingJudge::Verdict v = judge.judge(t_ns, value);   // keep v.value, or a gap for v.problem
//
// The physics: each device class has a power ceiling no real device of that class reaches
// (power_ceiling). A counter advance of E joules over dt is plausible when E <= ceiling × (dt +
// kCounterUpdateSlackNs): counters update in steps (NVML every ~100 ms, fuel gauges every few
// seconds), so a short interval may see a whole update. A decrease is a wrap only when the wrap
// distance passes that test; anything else that goes backwards or jumps is a counter reset or a
// bad read: the interval becomes a gap, a warning says so, and the energy inside it is counted as
// zero rather than invented. Non-finite and absurd values (power above the ceiling, negative power
// on an unsigned channel, utilisation outside [0, 1]) are left out as gaps too. The rules and the
// ceilings are documented in docs/sources.md ("Counter plausibility").
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "jouleprof/channel.hpp"
#include "jouleprof/clock.hpp"
#include "jouleprof/series.hpp"

namespace jouleprof {

// The longest counter update step a reading may catch in one interval.
inline constexpr TimeNs kCounterUpdateSlackNs = kNsPerS;
// |cumulative joules| beyond this (32 years at 1 MW) cannot be a reading of a real counter; it is
// also where a double's resolution reaches a tenth of a joule.
inline constexpr double kAbsurdCounterJ = 1e15;

struct PowerCeiling {
  double watts = 0.0;
  std::string_view device_class;  // "CPU package", "GPU", … as the warnings and docs name it
};

// By the channel's domain: package/core/uncore 1 kW, dram 500 W, gpu 2 kW, battery 500 W, psys
// 5 kW, anything else (rails, wall meters, unknown imported channels) 20 kW.
PowerCeiling power_ceiling(std::string_view domain);
inline PowerCeiling power_ceiling(const Channel& channel) { return power_ceiling(channel.domain); }

// Channels whose power may be negative: a battery's (charging).
bool is_signed_channel(const Channel& channel);

// True when `energy_j` in `dt_ns` stays under the ceiling (with the update slack).
bool plausible_energy(const PowerCeiling& ceiling, TimeNs dt_ns, double energy_j);

// Judges the readings of one channel in time order. Counters: an advance is kept (the stored value
// follows the reading's increments); a decrease or an implausible jump is a problem and the
// reading is left out; the next reading is measured from the last good one when it is plausible
// from there (the bad one was a stale or corrupt read, nothing is lost) and otherwise from the
// bad one (the counter was reset or moved: the energy in between is lost, as a gap).
class ReadingJudge {
 public:
  explicit ReadingJudge(const Channel& channel);

  struct Verdict {
    bool keep = true;
    double value = 0.0;   // what to store when kept (counters: rebased to stay non-decreasing)
    std::string problem;  // non-empty: this reading or the interval before it is a gap
  };
  Verdict judge(TimeNs t_ns, double value);

 private:
  Verdict judge_counter(TimeNs t_ns, double value);
  Verdict judge_level(double value) const;

  ChannelKind kind_;
  PowerCeiling ceiling_;
  bool signed_ = false;
  struct Point {
    TimeNs t_ns = 0;
    double raw = 0.0;
  };
  std::optional<Point> reference_;  // the last reading kept
  std::optional<Point> suspect_;    // the last reading left out since then
  // Stored = reading + offset_: 0 until a reset, so a clean series is stored exactly as read.
  double offset_ = 0.0;
  double last_stored_ = 0.0;  // what the last kept reading was stored as
};

// Runs a ReadingJudge over an imported series: readings it leaves out become gaps (with the
// problem as their reason), counters are rebased, existing gaps are kept. Returns one warning per
// series that had problems ("<channel>: N readings left out (first at t_ns …: problem)"), naming
// `origin` (the file).
std::optional<std::string> enforce_plausibility(Series& series, std::string_view origin);
std::vector<std::string> enforce_plausibility(std::vector<Series>& series, std::string_view origin);

}  // namespace jouleprof
