#include "jouleprof/device_scores.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "core/csv.hpp"
#include "core/figure_bounds.hpp"
#include "core/parse.hpp"

namespace jouleprof::scoring {
namespace {

// Score scale: 100 marks the reference (best in every row, or a typical device).
constexpr double kScoreScale = 100.0;

std::vector<double> average_ranks(const std::vector<double>& values) {
  std::vector<std::size_t> order(values.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(),
            [&](std::size_t a, std::size_t b) { return values[a] < values[b]; });
  std::vector<double> ranks(values.size());
  for (std::size_t i = 0; i < order.size();) {
    std::size_t j = i;
    while (j + 1 < order.size() && values[order[j + 1]] == values[order[i]]) ++j;
    const double rank = (static_cast<double>(i) + static_cast<double>(j)) / 2.0 + 1.0;
    for (std::size_t k = i; k <= j; ++k) ranks[order[k]] = rank;
    i = j + 1;
  }
  return ranks;
}

double pearson(const std::vector<double>& x, const std::vector<double>& y) {
  const double n = static_cast<double>(x.size());
  double mx = 0, my = 0;
  for (std::size_t i = 0; i < x.size(); ++i) mx += x[i], my += y[i];
  mx /= n, my /= n;
  double sxy = 0, sxx = 0, syy = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    sxy += (x[i] - mx) * (y[i] - my);
    sxx += (x[i] - mx) * (x[i] - mx);
    syy += (y[i] - my) * (y[i] - my);
  }
  return sxx > 0 && syy > 0 ? sxy / std::sqrt(sxx * syy) : 0.0;
}

std::optional<Agreement> agreement(const std::vector<std::pair<double, double>>& pairs) {
  if (pairs.size() < 2) return std::nullopt;
  std::vector<double> computed, published;
  Agreement a;
  a.devices = pairs.size();
  for (const auto& [c, p] : pairs) {
    computed.push_back(c);
    published.push_back(p);
    a.max_abs_difference = std::max(a.max_abs_difference, std::abs(c - p));
  }
  a.spearman_rho = pearson(average_ranks(computed), average_ranks(published));
  return a;
}

struct RowScores {
  std::map<std::string, double> score;
  std::map<std::string, std::size_t> rows;
};

// Scores one table whose cells have already been turned into "lower is better" values.
RowScores score_table(
    const std::map<std::pair<std::string, std::string>, std::map<std::string, double>>& cells,
    const std::set<std::string>& devices, std::size_t dnn_count, ScoreNormalisation n) {
  std::map<std::string, double> sum, log_sum;
  RowScores out;
  for (const auto& [row, values] : cells) {
    if (values.empty()) continue;
    double best = values.begin()->second;
    double log_mean = 0.0;
    for (const auto& [device, v] : values) {
      best = std::min(best, v);
      log_mean += std::log(v);
    }
    log_mean /= static_cast<double>(values.size());
    for (const auto& [device, v] : values) {
      sum[device] += best / v;
      log_sum[device] += log_mean - std::log(v);
      ++out.rows[device];
    }
  }
  for (const std::string& device : devices) {
    const std::size_t rows = out.rows[device];
    if (rows == 0) continue;
    switch (n) {
      case ScoreNormalisation::kRowBestSum:
        out.score[device] = kScoreScale / static_cast<double>(dnn_count) * sum[device];
        break;
      case ScoreNormalisation::kRowBestMean:
        out.score[device] = kScoreScale * sum[device] / static_cast<double>(rows);
        break;
      case ScoreNormalisation::kRowGeomean:
        out.score[device] = kScoreScale * std::exp(log_sum[device] / static_cast<double>(rows));
        break;
    }
  }
  return out;
}

}  // namespace

std::string_view to_string(ScoreNormalisation n) {
  switch (n) {
    case ScoreNormalisation::kRowBestSum:
      return "row-best-sum";
    case ScoreNormalisation::kRowBestMean:
      return "row-best-mean";
    case ScoreNormalisation::kRowGeomean:
      return "row-geomean";
  }
  return "?";
}

std::vector<std::string> score_normalisation_names() {
  return {"row-best-sum", "row-best-mean", "row-geomean"};
}

Result<ScoreNormalisation> score_normalisation_from_string(std::string_view s) {
  for (auto n : {ScoreNormalisation::kRowBestSum, ScoreNormalisation::kRowBestMean,
                 ScoreNormalisation::kRowGeomean}) {
    if (s == to_string(n)) return n;
  }
  return invalid_input("normalisation", "normalisation", std::string(s),
                       "expected row-best-sum, row-best-mean or row-geomean");
}

std::string describe(ScoreNormalisation n) {
  switch (n) {
    case ScoreNormalisation::kRowBestSum:
      return "100/N_dnn · Σ_rows (best value in the row / device value)";
    case ScoreNormalisation::kRowBestMean:
      return "100 · mean_rows (best value in the row / device value)";
    case ScoreNormalisation::kRowGeomean:
      return "100 · geomean_rows (row geometric mean / device value)";
  }
  return "";
}

std::string_view to_string(MissingCells m) {
  return m == MissingCells::kSkipRow ? "skip-row" : "skip-cell";
}

Result<MissingCells> missing_cells_from_string(std::string_view s) {
  if (s == "skip-row") return MissingCells::kSkipRow;
  if (s == "skip-cell") return MissingCells::kSkipCell;
  return invalid_input("missing", "missing", std::string(s), "expected skip-row or skip-cell");
}

namespace {

// What a table's cells are, by its value column's unit suffix: energy (J), power (W), or a
// score.
FigureKind cell_kind(std::string_view value_column) {
  if (value_column.ends_with("_j") || value_column.ends_with("_mj")) return FigureKind::kEnergy;
  if (value_column.ends_with("_w") || value_column.ends_with("_mw"))
    return FigureKind::kDevicePower;
  return FigureKind::kScore;
}

}  // namespace

Result<LongTable> read_long_table(const std::filesystem::path& path) {
  JP_TRY(CsvTable csv, read_csv_table(path));
  JP_TRY(std::size_t dnn_col, csv.require_column("dnn"));
  JP_TRY(std::size_t delegate_col, csv.require_column("delegate"));
  JP_TRY(std::size_t device_col, csv.require_column("device"));
  if (csv.header.size() != 4) {
    return invalid_input(csv.path, "header", fmt::format("{}", fmt::join(csv.header, ",")),
                         "expected dnn,delegate,device,<value>");
  }
  std::size_t value_col = 0;
  while (value_col == dnn_col || value_col == delegate_col || value_col == device_col) ++value_col;
  LongTable table;
  table.path = csv.path;
  table.value_column = csv.header[value_col];
  std::set<std::string> seen;
  for (std::size_t r = 0; r < csv.rows.size(); ++r) {
    const auto& row = csv.rows[r];
    const std::string& device = row[device_col];
    const std::string& field = row[value_col];
    const std::string where = fmt::format("{}: line {}", csv.path, csv.line_numbers[r]);
    std::optional<double> value = to_number(field);
    if (!field.empty() && !value)
      return invalid_input(where, table.value_column, field, "not a number");
    if (value && *value <= 0.0)
      return invalid_input(where, table.value_column, field, "must be positive");
    // Cells are divided by (best / cell): a cell of 1e-308 would put its device 1e300 ahead.
    if (value && !row[delegate_col].empty()) {
      JP_RETURN_IF_ERROR(
          check_measured_divisor(cell_kind(table.value_column), where, table.value_column, *value));
    }
    if (row[delegate_col].empty()) {  // a published score row, e.g. PCS,,<device>,75
      if (!value)
        return invalid_input(where, row[dnn_col], field, "published score without a value");
      table.published[device] = *value;
      table.published_label = row[dnn_col];
      continue;
    }
    if (seen.insert(device).second) table.devices.push_back(device);
    auto& cells = table.rows[{row[dnn_col], row[delegate_col]}];
    if (cells.contains(device))
      return invalid_input(where, "device", device, "second value for this row and device");
    cells[device] = value;
  }
  return table;
}

Result<std::map<std::string, double>> read_device_tdp_w(const std::filesystem::path& path) {
  JP_TRY(CsvTable csv, read_csv_table(path));
  JP_TRY(std::size_t device_col, csv.require_column("device"));
  JP_TRY(std::size_t tdp_col, csv.require_column("tdp_w"));
  std::map<std::string, double> tdp;
  for (std::size_t r = 0; r < csv.rows.size(); ++r) {
    auto value = to_number(csv.rows[r][tdp_col]);
    if (!value || *value <= 0.0) {
      return invalid_input(fmt::format("{}: line {}", csv.path, csv.line_numbers[r]), "tdp_w",
                           csv.rows[r][tdp_col], "not a positive number");
    }
    tdp[csv.rows[r][device_col]] = *value;
  }
  return tdp;
}

Result<ScoreReport> compute_scores(const LongTable& power_w, const LongTable& energy_j,
                                   const std::map<std::string, double>& tdp_w,
                                   const ScoreOptions& options) {
  ScoreReport report;
  report.normalisation = options.normalisation;
  report.missing = options.missing;
  std::vector<std::string> devices = power_w.devices;
  for (const std::string& d : energy_j.devices) {
    if (std::find(devices.begin(), devices.end(), d) == devices.end()) devices.push_back(d);
  }
  const std::set<std::string> device_set(devices.begin(), devices.end());
  for (const std::string& d : devices) {
    if (!tdp_w.contains(d)) {
      return invalid_input("devices table", "device", d,
                           "no TDP for this device (PCS is relative to TDP)");
    }
  }
  // Cells as "lower is better" values: P / TDP for PCS, E for IECS.
  auto prepare = [&](const LongTable& table, bool relative_to_tdp) {
    std::map<std::pair<std::string, std::string>, std::map<std::string, double>> cells;
    std::set<std::string> dnns;
    for (const auto& [row, values] : table.rows) {
      dnns.insert(row.first);
      std::map<std::string, double> present;
      bool row_complete = true;
      for (const std::string& d : devices) {
        auto it = values.find(d);
        if (it == values.end() || !it->second) {
          row_complete = false;
          report.missing_cells.push_back(
              fmt::format("{} {}/{}: {}", table.value_column, row.first, row.second, d));
          continue;
        }
        present[d] = relative_to_tdp ? *it->second / tdp_w.at(d) : *it->second;
      }
      if (!row_complete && options.missing == MissingCells::kSkipRow) {
        report.skipped_rows.push_back(
            fmt::format("{} {}/{}", table.value_column, row.first, row.second));
        continue;
      }
      cells[row] = std::move(present);
    }
    return std::pair{cells, dnns.size()};
  };
  auto [power_cells, power_dnns] = prepare(power_w, true);
  auto [energy_cells, energy_dnns] = prepare(energy_j, false);
  const RowScores pcs = score_table(power_cells, device_set, power_dnns, options.normalisation);
  const RowScores iecs = score_table(energy_cells, device_set, energy_dnns, options.normalisation);

  std::vector<std::pair<double, double>> pcs_pairs, iecs_pairs;
  for (const std::string& d : devices) {
    DeviceScore s;
    s.device = d;
    s.tdp_w = tdp_w.at(d);
    if (auto it = pcs.score.find(d); it != pcs.score.end()) s.pcs = it->second;
    if (auto it = iecs.score.find(d); it != iecs.score.end()) s.iecs = it->second;
    if (auto it = pcs.rows.find(d); it != pcs.rows.end()) s.pcs_rows = it->second;
    if (auto it = iecs.rows.find(d); it != iecs.rows.end()) s.iecs_rows = it->second;
    if (auto it = power_w.published.find(d); it != power_w.published.end())
      s.published_pcs = it->second;
    if (auto it = energy_j.published.find(d); it != energy_j.published.end())
      s.published_iecs = it->second;
    for (auto [score, name] : {std::pair{&s.pcs, "PCS"}, std::pair{&s.iecs, "IECS"}}) {
      if (!*score) continue;
      if (auto warning = withhold_implausible(FigureKind::kScore,
                                              fmt::format("the {} of {}", name, d), **score)) {
        report.warnings.push_back(std::move(*warning));
        score->reset();
      }
    }
    if (s.pcs && s.published_pcs) pcs_pairs.emplace_back(*s.pcs, *s.published_pcs);
    if (s.iecs && s.published_iecs) iecs_pairs.emplace_back(*s.iecs, *s.published_iecs);
    report.devices.push_back(std::move(s));
  }
  report.pcs_agreement = agreement(pcs_pairs);
  report.iecs_agreement = agreement(iecs_pairs);
  return report;
}

}  // namespace jouleprof::scoring
