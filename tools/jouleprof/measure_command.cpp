// jouleprof measure: gated fine-grained measurement (FECoM). This file holds the command line
// only; the protocol lives in src/protocol/.
#include <iostream>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "command.hpp"
#include "jouleprof/fecom_records.hpp"

namespace jouleprof::cli {
namespace {

struct MeasureArgs {
  std::string fecom_records;
  std::string format = "table";
};

nlohmann::json stats_json(const RepetitionStats& s) {
  return {{"n", s.n}, {"mean", s.mean}, {"median", s.median}, {"stdev", s.stdev},
          {"ci95_low", s.ci95_low}, {"ci95_high", s.ci95_high}};
}

void print_fecom_table(const FecomAnalysis& a) {
  std::cout << fmt::format("FECoM records: {} experiments, energy recomputed by jouleprof's rules "
                           "(measured: perf RAPL for cpu/ram, nvidia-smi power for gpu)\n",
                           a.experiments);
  std::cout << "net = energy in the call's window − idle baseline (20 s before) × window; (n) = "
               "experiments with a window; < 1 sample = call shorter than one interval\n";
  std::cout << fmt::format("{:>3}  {:<48} {:>9}  {:>21} {:>21} {:>21}  {:>10}\n", "#", "api",
                           "time s", "cpu net J", "ram net J", "gpu net J", "gpu tail J");
  for (const FecomCallSummary& c : a.calls) {
    std::string api = c.api.size() > 48 ? "…" + c.api.substr(c.api.size() - 47) : c.api;
    std::cout << fmt::format("{:>3}  {:<48} {:>9.3f}", c.position, api, c.execution_s.mean);
    for (FecomDevice d : kFecomDevices) {
      const FecomDeviceSummary& s = c.devices[static_cast<int>(d)];
      if (s.net_j.n == 0) {
        std::cout << fmt::format("  {:>21}", "< 1 sample");
      } else {
        const std::string n = s.net_j.n < c.experiments ? fmt::format("({})", s.net_j.n) : "";
        std::cout << fmt::format("  {:>8.2f} ± {:<7.2f}{:>4}", s.net_j.mean, s.net_j.stdev, n);
      }
    }
    const FecomDeviceSummary& gpu = c.devices[static_cast<int>(FecomDevice::kGpu)];
    std::cout << fmt::format("  {:>10}\n", gpu.tail_j.n ? fmt::format("{:.2f}", gpu.tail_j.mean) : "-");
  }
  for (const std::string& w : a.warnings) std::cout << "warning: " << w << '\n';
}

nlohmann::json fecom_json(const FecomAnalysis& a) {
  nlohmann::json calls = nlohmann::json::array();
  for (const FecomCallSummary& c : a.calls) {
    nlohmann::json devices;
    for (FecomDevice d : kFecomDevices) {
      const FecomDeviceSummary& s = c.devices[static_cast<int>(d)];
      devices[std::string(to_string(d))] = {{"total_j", stats_json(s.total_j)},
                                            {"net_j", stats_json(s.net_j)},
                                            {"tail_j", stats_json(s.tail_j)},
                                            {"net_plus_tail_j", stats_json(s.net_plus_tail_j)},
                                            {"skipped_shorter_than_sample", s.skipped}};
    }
    calls.push_back({{"position", c.position},
                     {"api", c.api},
                     {"experiments", c.experiments},
                     {"execution_s", stats_json(c.execution_s)},
                     {"args_size", c.args_size ? nlohmann::json(*c.args_size) : nlohmann::json()},
                     {"provenance", "measured (FECoM records: perf RAPL, nvidia-smi)"},
                     {"devices", devices}});
  }
  return {{"experiments", a.experiments}, {"calls", calls}, {"warnings", a.warnings}};
}

int run_fecom_records(const MeasureArgs& args) {
  const Result<FecomAnalysis> analysis = analyse_fecom_directory(args.fecom_records);
  if (!analysis) return report_error(analysis.error());
  if (args.format == "json") {
    std::cout << fecom_json(*analysis).dump(2) << '\n';
  } else {
    print_fecom_table(*analysis);
  }
  return kExitOk;
}

}  // namespace

CommandRunner add_measure_command(CLI::App& parent) {
  auto args = std::make_shared<MeasureArgs>();
  CLI::App* cmd = parent.add_subcommand(
      "measure", "Gated fine-grained energy measurement (FECoM): stability gate, idle baseline, "
                 "net and tail energy, repetitions");
  cmd->add_option("--fecom-records", args->fecom_records,
                  "Re-analyse FECoM's published per-call records (a directory of "
                  "experiment-<k>.json) and print per-API mean ± stdev")
      ->check(CLI::ExistingDirectory);
  cmd->add_option("--format", args->format, "Output format")->check(CLI::IsMember({"table", "json"}));
  return [args, cmd] {
    if (!args->fecom_records.empty()) return run_fecom_records(*args);
    std::cerr << cmd->help();
    return kExitUsage;
  };
}

}  // namespace jouleprof::cli
