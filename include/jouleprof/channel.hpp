// Channel: one stream of readings from one energy source — a RAPL zone, a GPU's energy counter,
// a hwmon rail, a simulated meter. Every figure jouleprof reports traces back to channels, and
// every channel says where its numbers come from (provenance) and what it nests in.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "jouleprof/clock.hpp"

namespace jouleprof {

// Where a number came from. Fixed values: they are written to files and the C API.
enum class Provenance : std::uint8_t {
  kMeasured = 0,      // read from a hardware or driver counter
  kInterpolated = 1,  // derived from measured readings by interpolation between updates
  kEstimated = 2,     // computed by a model from other observations (e.g. CPU utilisation × TDP)
  kSimulated = 3,     // produced by jouleprof's simulator
  kPredicted = 4,     // predicted before running (kernel predictors, PRE)
  kImported = 5,      // read from a recorded log (nvidia-smi, perf stat, a meter CSV)
  kAttributed = 6,    // a share of a measured figure given to part of the machine by a rule
                      // (the observed processes' CPU-time share of a package): not measured
};

std::string_view to_string(Provenance p);
std::optional<Provenance> provenance_from_string(std::string_view s);
// The less direct of two provenances (measured < interpolated < imported < estimated < predicted
// < simulated < attributed): a figure made of both is only as direct as that.
Provenance less_direct(Provenance a, Provenance b);
// Estimated, predicted or simulated: not a measurement of this run's hardware.
bool is_modelled(Provenance p);

// What a channel's value means. Fixed values.
enum class ChannelKind : std::uint8_t {
  kEnergyCounter = 0,  // cumulative joules, non-decreasing (wrap already undone)
  kPower = 1,          // watts at an instant (or averaged over the source's window)
  kTemperature = 2,    // degrees Celsius
  kUtilisation = 3,    // fraction 0..1 (CPU or GPU busy share)
  kBusyTime = 4,       // cumulative seconds of work, non-decreasing: CPU time of a set of
                       // processes or of all CPUs, a GPU's utilisation-weighted busy time
};

std::string_view to_string(ChannelKind k);
std::optional<ChannelKind> channel_kind_from_string(std::string_view s);

struct Channel {
  std::string id;      // unique within a run, e.g. "rapl:package-0", "nvml:0:energy"
  std::string source;  // backend that produced it, e.g. "rapl-powercap", "nvml"
  std::string device;  // what it measures, e.g. "cpu0", "gpu0", "battery BAT0": tracks of the same
                       // device consume its energy (docs/schema.md, device names)
  std::string domain;  // "package", "core", "uncore", "dram", "psys", "gpu", "rail", "system"
  ChannelKind kind = ChannelKind::kEnergyCounter;
  Provenance provenance = Provenance::kMeasured;
  std::string provenance_detail;  // how exactly: counter file, model and its inputs, trace path
  std::string parent_id;         // enclosing channel (core ⊂ package ⊂ psys); empty = top level
  TimeNs nominal_period_ns = 0;  // how often the hardware updates the value; 0 = unknown
  TimeNs measured_period_ns = 0;  // observed update period in this run; 0 = not measured
  // Power the channel's model draws at zero load, when a model sets it (the CPU estimate's
  // P_idle); measured channels leave it unset and need a measured idle baseline instead.
  std::optional<double> static_power_w = std::nullopt;
  std::string label = {};  // what the device is, for people: "NVIDIA H200"; empty when unknown
  // A power channel whose readings are each the mean power over this long before them, not an
  // instant's (NVML's board power on Ampere and newer except GA100: 1 s). The energy read in a
  // window is then the true energy of a window up to this much earlier, smeared (the
  // `averaging` uncertainty term). 0: an instant's power, an energy counter, or not known.
  TimeNs averaging_ns = 0;

  bool is_top_level() const { return parent_id.empty(); }
  // "gpu0 (NVIDIA H200)", or the device alone when it has no label.
  std::string device_with_label() const {
    return label.empty() ? device : device + " (" + label + ")";
  }
  bool carries_energy() const {
    return kind == ChannelKind::kEnergyCounter || kind == ChannelKind::kPower;
  }
};

}  // namespace jouleprof
