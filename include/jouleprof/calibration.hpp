// Calibration: per-class power weights measured separately (each operator class run alone), with
// how they were measured. The calibrated attribution method splits each counter window's energy
// in proportion to busy time × these weights (docs/attribution.md).
//
//   JP_TRY(jouleprof::Calibration cal, jouleprof::read_calibration_json("calibration.json"));
//   options.calibration_by_channel["nvml:0:energy"] = cal;   // AttributionOptions
//
// One file format, "jouleprof-calibration" version 1, for a file written by hand (device,
// provenance, idle_w, classes of match + power_w) and for one written by `jouleprof calibrate`,
// which adds the gated protocol's figures per class and the run's context.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "jouleprof/profile.hpp"
#include "jouleprof/result.hpp"

namespace jouleprof {

// The stability gate of one measured repetition: how long it waited for a stable machine.
struct CalibrationGate {
  double waited_s = 0.0;
  std::uint32_t checks = 0;
  double max_cv = 0.0;  // the highest interval-power CV of the device's channels when it passed
};

// How a class's power was measured by the gated protocol (jouleprof calibrate).
struct ClassMeasurement {
  double baseline_w = 0.0;      // mean power of the windows the gates accepted
  RepetitionStats net_power_w;  // net energy per call ÷ time per call, over the repetitions
  double tail_j_per_call = 0.0;
  double call_s = 0.0;                 // time per call (mean over the repetitions)
  std::uint64_t calls_per_window = 0;  // of the first repetition
  double self_time_share = 0.0;        // of the profiled step's operator time
  std::string signature;               // the argument shapes replayed
  std::vector<CalibrationGate> gates;  // one per measured repetition
  std::string incomplete;  // repetitions missing and why (a gate that gave up, with its wait and
                           // the unstable channel); empty when all were measured
};

// A class power's 95 % error where the file gives none (written by hand, or one repetition):
// docs/uncertainty.md.
inline constexpr double kDefaultCalibrationError = 0.10;

struct CalibrationClass {
  std::string match;       // a class name ("aten::addmm"), or a glob with '*' matched against it
  double power_w = 0.0;    // the class's power while it runs (baseline + net power when measured)
  std::string provenance;  // how this figure was measured
  std::optional<ClassMeasurement> measurement;

  // The 95 % error of power_w as a fraction of it: half the measured net power's ci95 over the
  // repetitions, or kDefaultCalibrationError.
  double relative_error() const;
};

struct Calibration {
  // Device the weights were measured on: "" (any), a channel device ("gpu0"), or a framework
  // device ("cpu", "cuda") that covers every channel device of its kind (device_selects).
  std::string device;
  std::optional<double> idle_power_w;
  std::vector<CalibrationClass> classes;  // first match wins
  std::string provenance;  // how the whole file was produced ("measured", "simulated", in words)
  std::string origin;      // file path it was read from (not written)

  // Written by jouleprof calibrate; empty / absent in a file written by hand.
  std::string model;                     // the workload the classes were captured from
  std::string method;                    // the protocol and its settings, in words
  std::vector<std::string> channel_ids;  // channels whose energy was measured
  std::optional<double> time_coverage;   // share of the step's operator time the classes cover
  std::vector<std::string> skipped;      // "aten::foo: <why it was not replayed>"

  // Power of the first class whose `match` matches `class_name` (exactly, then by glob).
  std::optional<double> power_for(std::string_view class_name) const;
  // The first class whose `match` matches `class_name` (exactly, then by glob); null if none.
  const CalibrationClass* match(std::string_view class_name) const;
  // The class whose `match` is exactly `class_name`; null if none.
  const CalibrationClass* find(std::string_view class_name) const;
  // Whether the weights were measured on the device a channel measures (device_selects).
  bool applies_to_device(std::string_view channel_device) const;
};

Result<Calibration> read_calibration_json(const std::string& path);
Result<Calibration> calibration_from_json_string(const std::string& text,
                                                 const std::string& origin);
std::string calibration_to_json_string(const Calibration& calibration);
Status write_calibration_json(const Calibration& calibration, const std::string& path);

}  // namespace jouleprof
