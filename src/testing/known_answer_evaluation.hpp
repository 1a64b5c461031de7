// Known-answer evaluation of the attribution methods: simulated workloads with true per-op power,
// fed through simulated counters, attributed, and compared class by class with the truth.
// eval/attribution prints the table; tests/attribution asserts the targets on the same cases.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "jouleprof/attribution.hpp"
#include "testing/workload_simulator.hpp"

namespace jouleprof::attribution {

enum class SimulatedCounter { kRapl1ms, kNvml100ms, kAveragedPower1s };

std::string_view to_string(SimulatedCounter c);
std::string_view to_string(WorkloadShape s);

// One op class's attributed energy beside the truth and the 95 % interval the attribution gave it.
struct ClassBand {
  double true_j = 0.0;
  double estimate_j = 0.0;
  EnergyBand band;
};

struct EvaluationOutcome {
  AttributionMethod method = AttributionMethod::kInterpolate;
  SimulatedCounter counter = SimulatedCounter::kRapl1ms;
  WorkloadShape shape = WorkloadShape::kSteadyStep;
  bool declined = false;            // regress refused per-class figures
  std::string note;                 // why it declined, or the attribution error
  double median_class_error = 0.0;  // |estimated − true| / true over the op classes
  double p90_class_error = 0.0;
  double tree_vs_measured = 0.0;  // |tree total − measured| / measured
  double spans_vs_truth = 0.0;    // |Σ span energy − true Σ span energy| / true
  std::size_t classes = 0;
  std::size_t windows = 0;             // counter windows in the run
  double condition_number = 0.0;       // regress only
  std::size_t identified_classes = 0;  // regress only
  bool plain = false;                  // interpolate with refine_interpolation off
  std::size_t refined_classes = 0;     // interpolate: classes weighed by fitted power
  std::size_t calibrated_classes = 0;  // auto's interpolate: by calibrated power
  AttributionMethod picked = AttributionMethod::kInterpolate;  // what ran (auto's pick)
  double read_delay_us = 0.0;          // interpolate: the counter's read delay as estimated
  std::vector<ClassBand> class_bands;  // the op classes with a true energy
};

// Calibration weights for the simulated classes, each off by a uniform ±relative_error (seeded).
Calibration perturbed_calibration(const SimulatedWorkload& w, double relative_error,
                                  std::uint64_t seed);

Series simulate_counter(const SimulatedWorkload& w, SimulatedCounter counter, std::uint64_t seed);

// Attributes `counter` over the workload with `method`; calibration is used by kCalibrated.
// refine_interpolation = false gives plain interpolation (the reference for the refinement).
EvaluationOutcome evaluate_method(const SimulatedWorkload& w, const Series& counter,
                                  AttributionMethod method, const Calibration& calibration,
                                  bool refine_interpolation = true);

// Run length of the grid's workloads: 120 s gives ~1200 windows of the 100 ms counter (the
// regression targets need ≥ 300; more windows shrink the standard errors as 1/√n).
inline constexpr TimeNs kEvaluationRunNs = 120 * kNsPerS;
inline constexpr TimeNs kDurationSweepRunNs = 20 * kNsPerS;

// The whole grid: every method (and plain interpolation) × counter × workload shape (seeded).
std::vector<EvaluationOutcome> run_evaluation_grid(std::uint64_t seed);

// Interpolate (refined, and plain) on the 1 ms counter over the steady step with every op duration
// scaled ×1, ×4, ×16, ×64: how per-class error depends on op length relative to the counter's
// update period, beside the method auto picks for each.
struct DurationSweepRow {
  double duration_scale = 1.0;
  double typical_span_ms = 0.0;  // time-weighted median self-segment (auto's yardstick)
  std::optional<AttributionMethod> auto_method;
  EvaluationOutcome
      outcome;  // interpolate as it runs by default (refined where the counter is coarse)
  EvaluationOutcome plain;  // plain interpolation
};
std::vector<DurationSweepRow> run_duration_sweep(std::uint64_t seed);
std::string format_duration_sweep(const std::vector<DurationSweepRow>& rows);

// How well the 95 % intervals hold, per workload × counter × method over many seeds: the share of
// (class, seed) pairs whose interval holds the true energy, and the median relative half-width
// beside the median relative error (docs/uncertainty.md prints this table).
struct CoverageRow {
  WorkloadShape shape = WorkloadShape::kSteadyStep;
  SimulatedCounter counter = SimulatedCounter::kRapl1ms;
  AttributionMethod method = AttributionMethod::kInterpolate;
  bool plain = false;
  std::size_t pairs = 0;
  double coverage = 0.0;
  double median_half_width = 0.0;
  double median_error = 0.0;
  // The 90th percentile of the relative errors: a band of one relative width for every class
  // covers 90 % of the pairs only if it is this wide, so p90_error / median_error is the least
  // ratio of width to error such a band can have (a narrower ratio needs a band that knows
  // which classes are off).
  double p90_error = 0.0;
};
std::vector<CoverageRow> run_coverage_grid(std::uint64_t first_seed, std::size_t seeds,
                                           TimeNs run_ns);
std::string format_coverage_table(const std::vector<CoverageRow>& rows);

// Fixed-width table, one row per outcome.
std::string format_evaluation_table(const std::vector<EvaluationOutcome>& outcomes);

}  // namespace jouleprof::attribution
