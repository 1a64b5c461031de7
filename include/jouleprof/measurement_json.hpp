// The JSON of what `measure` measured (a gated measurement, an auto-window sweep, FECoM records
// recomputed), each document versioned: {"schema": "jouleprof.<kind>", "schema_version": N, ...}.
// docs/measure.md describes the fields; a reader checks schema and schema_version first.
#pragma once

#include <string>

#include "jouleprof/auto_window.hpp"
#include "jouleprof/fecom_records.hpp"
#include "jouleprof/gated_measurement.hpp"

namespace jouleprof {

// Raised when a field changes meaning or goes away (a new field keeps the version).
inline constexpr int kMeasurementJsonVersion = 1;

// schema "jouleprof.gated": per repetition its gate and per-call figures, and the summary.
std::string to_json(const GatedResult& result, int indent = 2);
// schema "jouleprof.auto-window": the chosen window and cooldown, and the sweep.
std::string to_json(const AutoWindowResult& result, int indent = 2);
// schema "jouleprof.fecom-records": per API call, per device, the recomputed statistics.
std::string to_json(const FecomAnalysis& analysis, int indent = 2);

}  // namespace jouleprof
