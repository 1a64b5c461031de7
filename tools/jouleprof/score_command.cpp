#include <fmt/format.h>

#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "command.hpp"
#include "jouleprof/device_scores.hpp"
#include "output_format.hpp"

namespace jouleprof::cli {
namespace {

using namespace jouleprof::scoring;

struct ScoreArgs {
  std::string power, energy, devices;
  std::string normalisation = "row-best-sum";
  std::string missing = "skip-row";
  OutputFormat format = OutputFormat::kTable;
};

std::string cell(const std::optional<double>& v) { return v ? fmt::format("{:.1f}", *v) : "-"; }

nlohmann::json opt(const std::optional<double>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json();
}

nlohmann::json agreement_json(const std::optional<Agreement>& a) {
  if (!a) return nullptr;
  return {{"devices", a->devices},
          {"spearman_rho", a->spearman_rho},
          {"max_abs_difference", a->max_abs_difference}};
}

void print_table(const ScoreReport& r) {
  fmt::print("normalisation {}: score = {}\n", to_string(r.normalisation),
             describe(r.normalisation));
  fmt::print(
      "cells: PCS from average power / TDP, IECS from energy per inference; missing cells: {}\n",
      to_string(r.missing));
  fmt::print("{:<24} {:>6} {:>9} {:>9} {:>10} {:>10}\n", "device", "TDP W", "PCS", "PCS pub.",
             "IECS", "IECS pub.");
  for (const DeviceScore& d : r.devices) {
    fmt::print("{:<24} {:>6.0f} {:>9} {:>9} {:>10} {:>10}\n", d.device, d.tdp_w, cell(d.pcs),
               cell(d.published_pcs), cell(d.iecs), cell(d.published_iecs));
  }
  auto agree = [](std::string_view name, const std::optional<Agreement>& a) {
    if (!a) return;
    fmt::print(
        "{} vs published ({} devices): Spearman rho {:.2f}, max |difference| {:.1f} points{}\n",
        name, a->devices, a->spearman_rho, a->max_abs_difference,
        a->max_abs_difference < 0.5 ? "" : " — not a reproduction of the published scores");
  };
  agree("PCS", r.pcs_agreement);
  agree("IECS", r.iecs_agreement);
  for (const std::string& c : r.missing_cells) fmt::print("missing cell: {}\n", c);
  for (const std::string& s : r.skipped_rows) fmt::print("row skipped for every device: {}\n", s);
}

}  // namespace

CommandRunner add_score_command(CLI::App& parent) {
  auto args = std::make_shared<ScoreArgs>();
  CLI::App* cmd = parent.add_subcommand(
      "score",
      "Device scores (DeepEn2023): PCS from average power relative to TDP and IECS from energy per "
      "inference over (DNN, delegate) rows, beside the published scores when the tables carry "
      "them");
  cmd->add_option("--power", args->power, "Average power table, long CSV dnn,delegate,device,<W>")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("--energy", args->energy,
                  "Energy per inference table, long CSV dnn,delegate,device,<J>")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("--devices", args->devices, "Devices table with columns device and tdp_w")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option(
         "--normalisation", args->normalisation,
         "row-best-sum: 100/N_dnn·Σ(row best/value); row-best-mean: 100·mean(row best/value); "
         "row-geomean: 100·geomean(row geomean/value)")
      ->check(CLI::IsMember(score_normalisation_names()))
      ->capture_default_str();
  cmd->add_option(
         "--missing", args->missing,
         "Missing cells: skip-row (drop the row for every device) or skip-cell (score each "
         "device over the rows it has)")
      ->check(CLI::IsMember({"skip-row", "skip-cell"}))
      ->capture_default_str();
  add_format_option(*cmd, args->format, {OutputFormat::kTable, OutputFormat::kJson},
                    "table or json");
  return [args] {
    ScoreOptions options;
    options.normalisation = *score_normalisation_from_string(args->normalisation);
    options.missing = *missing_cells_from_string(args->missing);
    auto power = read_long_table(args->power);
    if (!power) return report_error(power.error());
    auto energy = read_long_table(args->energy);
    if (!energy) return report_error(energy.error());
    auto tdp = read_device_tdp_w(args->devices);
    if (!tdp) return report_error(tdp.error());
    auto report = compute_scores(*power, *energy, *tdp, options);
    if (!report) return report_error(report.error());
    for (const std::string& w : report->warnings) std::cerr << "jouleprof: warning: " << w << '\n';
    if (args->format == OutputFormat::kTable) {
      print_table(*report);
      return kExitOk;
    }
    nlohmann::json devices = nlohmann::json::array();
    for (const DeviceScore& d : report->devices) {
      devices.push_back({{"device", d.device},
                         {"tdp_w", d.tdp_w},
                         {"pcs", opt(d.pcs)},
                         {"published_pcs", opt(d.published_pcs)},
                         {"iecs", opt(d.iecs)},
                         {"published_iecs", opt(d.published_iecs)},
                         {"pcs_rows", d.pcs_rows},
                         {"iecs_rows", d.iecs_rows}});
    }
    nlohmann::json doc = {{"normalisation", to_string(report->normalisation)},
                          {"formula", describe(report->normalisation)},
                          {"missing", to_string(report->missing)},
                          {"devices", devices},
                          {"missing_cells", report->missing_cells},
                          {"skipped_rows", report->skipped_rows},
                          {"warnings", report->warnings},
                          {"pcs_agreement", agreement_json(report->pcs_agreement)},
                          {"iecs_agreement", agreement_json(report->iecs_agreement)}};
    std::cout << doc.dump(2) << '\n';
    return kExitOk;
  };
}

}  // namespace jouleprof::cli
