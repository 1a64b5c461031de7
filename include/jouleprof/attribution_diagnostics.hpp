// What an attribution method found about its own fit, per channel: the figures that tell a reader
// whether to trust the breakdown (docs/attribution.md). Each method has its own part; a profile
// file keeps them as one flat object of named numbers (docs/schema.md lists the names).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "jouleprof/result.hpp"

namespace jouleprof {

// Interpolation refined below the counter's update period by class powers fitted on its update
// intervals.
struct RefinementDiagnostics {
  std::uint64_t windows = 0;  // update intervals fitted on
  std::uint64_t classes = 0;
  std::uint64_t refined_classes = 0;  // classes weighed by their fitted power; 0: not refined
  std::optional<double> condition_number;
  std::optional<double> idle_power_w;    // the fitted idle power, when the refinement applied
  std::optional<double> read_delay_us;   // the counter's read delay that fits best, when applied
  std::uint64_t calibrated_classes = 0;  // under auto: by their calibrated power, more certain
};

// The non-negative least-squares fit of window energies on per-class busy time.
struct RegressionFit {
  int rank = 0;
  std::uint64_t columns = 0;  // the idle power and one per class
  double condition_number = 0.0;
  double residual_rms_j = 0.0;
  double idle_power_w = 0.0;
  std::uint64_t identified_classes = 0;  // within the standard-error limit
  // Standard error of each class's power ("[idle]" for the idle power), where finite.
  std::map<std::string, double> standard_error_w;
};

struct RegressionDiagnostics {
  std::uint64_t windows = 0;  // whole counter windows
  std::uint64_t classes = 0;
  std::uint64_t min_windows = 0;
  bool identifiable = false;  // false: per-class figures declined, the tree interpolated instead
  std::optional<RegressionFit> fit;  // absent when there were too few windows to fit
};

struct CalibrationDiagnostics {
  std::uint64_t calibrated_classes = 0;
  std::uint64_t uncalibrated_classes = 0;  // weighed by the mean calibrated power
  double idle_weight_w = 0.0;
};

struct AttributionDiagnostics {
  double update_period_ms = 0.0;  // the counter's median update spacing in the window
  double typical_span_ms = 0.0;   // time-weighted median self-segment: auto's yardstick
  std::uint64_t segments = 0;
  double measured_energy_j = 0.0;
  double attributed_energy_j = 0.0;
  double busy_s = 0.0;
  std::optional<std::uint64_t> threads_weighed_by_cpu_time;
  std::map<std::string, double> class_power_w;  // per class, where the method found one

  std::optional<RefinementDiagnostics> refinement;
  std::optional<RegressionDiagnostics> regression;
  std::optional<CalibrationDiagnostics> calibration;
};

// The flat form a profile file holds: {"update_period_ms": …, "power_w:<class>": …,
// "se_w:<class>": …, "refined_classes": …}.
std::map<std::string, double> diagnostics_by_name(const AttributionDiagnostics& d);
// Names this jouleprof does not know are left out (a later version's additions). A count that is
// not a whole number is refused, the error naming it.
Result<AttributionDiagnostics> diagnostics_from_names(const std::map<std::string, double>& named);

}  // namespace jouleprof
