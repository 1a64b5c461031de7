// Known-answer evaluation of the attribution methods: simulated workloads with true per-op power,
// fed through simulated counters, attributed, and compared class by class with the truth.
// eval/attribution prints the table; tests/attribution asserts the targets on the same cases.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "attribution/workload_simulator.hpp"
#include "jouleprof/attribution.hpp"

namespace jouleprof::attribution {

enum class SimulatedCounter { kRapl1ms, kNvml100ms, kAveragedPower1s };

std::string_view to_string(SimulatedCounter c);
std::string_view to_string(WorkloadShape s);

struct EvaluationOutcome {
  AttributionMethod method = AttributionMethod::kInterpolate;
  SimulatedCounter counter = SimulatedCounter::kRapl1ms;
  WorkloadShape shape = WorkloadShape::kSteadyStep;
  bool declined = false;            // regress refused per-class figures
  std::string note;                 // why it declined, or the attribution error
  double median_class_error = 0.0;  // |estimated − true| / true over the op classes
  double p90_class_error = 0.0;
  double tree_vs_measured = 0.0;    // |tree total − measured| / measured
  double spans_vs_truth = 0.0;      // |Σ span energy − true Σ span energy| / true
  std::size_t classes = 0;
  std::size_t windows = 0;          // counter windows in the run
  double condition_number = 0.0;    // regress only
  std::size_t identified_classes = 0;  // regress only
};

// Calibration weights for the simulated classes, each off by a uniform ±relative_error (seeded).
Calibration perturbed_calibration(const SimulatedWorkload& w, double relative_error, std::uint64_t seed);

Series simulate_counter(const SimulatedWorkload& w, SimulatedCounter counter, std::uint64_t seed);

// Attributes `counter` over the workload with `method`; calibration is used by kCalibrated.
EvaluationOutcome evaluate_method(const SimulatedWorkload& w, const Series& counter,
                                  AttributionMethod method, const Calibration& calibration);

// The whole grid: every method × counter × workload shape (seeded).
std::vector<EvaluationOutcome> run_evaluation_grid(std::uint64_t seed);

// Fixed-width table, one row per outcome.
std::string format_evaluation_table(const std::vector<EvaluationOutcome>& outcomes);

}  // namespace jouleprof::attribution
