// Device scores for end users (DeepEn2023, METHODS.md §4), higher is better:
//   PCS  (power consumption score) from each device's average power per (DNN, delegate) row,
//        taken relative to the device's TDP (cell value P / TDP);
//   IECS (inference energy consumption score) from its energy per inference (cell value E).
// The published normalisation is not recoverable from the paper, so it is a named choice
// (ScoreNormalisation); the published scores are shown beside the computed ones when the table
// carries them (rows with an empty delegate, e.g. `PCS,,<device>,75`), with their agreement,
// and the output never says the published numbers are reproduced.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "jouleprof/result.hpp"

namespace jouleprof::scoring {

// Every normalisation maps a row (one DNN on one delegate, all devices) to per-device ratios
// r = best value in the row / device value (lower power or energy is better, so r ≤ 1 and the
// best device has 1), or for kRowGeomean r = the row's geometric mean / device value; then:
enum class ScoreNormalisation {
  kRowBestSum,   // 100 / N_dnn · Σ_rows r — METHODS' k·Σ form with k = 100 / (number of DNNs)
  kRowBestMean,  // 100 · mean_rows r — 100 = best in every row
  kRowGeomean,   // 100 · geometric mean_rows r — 100 = a typical device
};
std::string_view to_string(ScoreNormalisation n);
Result<ScoreNormalisation> score_normalisation_from_string(std::string_view s);
std::string describe(ScoreNormalisation n);
std::vector<std::string> score_normalisation_names();

// Cells missing for some device (empty value or no row for it):
enum class MissingCells {
  kSkipRow,   // drop the whole row for every device, so all devices are scored on the same rows
  kSkipCell,  // score each device over the rows it has (sums lose the row, means average fewer)
};
std::string_view to_string(MissingCells m);
Result<MissingCells> missing_cells_from_string(std::string_view s);

// A long table `dnn,delegate,device,<value>`.
struct LongTable {
  std::string path;
  std::string value_column;  // e.g. apc_w, eci_j
  std::map<std::pair<std::string, std::string>, std::map<std::string, std::optional<double>>> rows;
  std::map<std::string, double> published;  // device → published score
  std::string published_label;              // "PCS", "IECS" (the dnn field of those rows)
  std::vector<std::string> devices;         // in order of first appearance
};
Result<LongTable> read_long_table(const std::filesystem::path& path);

// devices.csv: device → TDP in W (column tdp_w).
Result<std::map<std::string, double>> read_device_tdp_w(const std::filesystem::path& path);

struct DeviceScore {
  std::string device;
  double tdp_w = 0.0;
  std::optional<double> pcs, iecs;
  std::optional<double> published_pcs, published_iecs;
  std::size_t pcs_rows = 0, iecs_rows = 0;  // rows the score used
};

struct Agreement {  // computed vs published, over devices that have both
  std::size_t devices = 0;
  double spearman_rho = 0.0;
  double max_abs_difference = 0.0;
};

struct ScoreReport {
  ScoreNormalisation normalisation;
  MissingCells missing;
  std::vector<DeviceScore> devices;
  std::vector<std::string> missing_cells;  // "DNN2/CPU4: <device>", one per missing cell
  std::vector<std::string> skipped_rows;   // "DNN2/CPU4" (kSkipRow)
  std::optional<Agreement> pcs_agreement, iecs_agreement;
  // Scores withheld because no device can be that far ahead (core/figure_bounds.hpp).
  std::vector<std::string> warnings;
};

struct ScoreOptions {
  ScoreNormalisation normalisation = ScoreNormalisation::kRowBestSum;
  MissingCells missing = MissingCells::kSkipRow;
};

// Fails when a device of a table has no TDP in the devices table.
Result<ScoreReport> compute_scores(const LongTable& power_w, const LongTable& energy_j,
                                   const std::map<std::string, double>& tdp_w,
                                   const ScoreOptions& options);

}  // namespace jouleprof::scoring
