// jouleprof sweep: Smaragdine's hyperparameter study (BERT layers × hidden size) and the BERT vs
// ALBERT comparison — per variant the total energy, energy per sample and the attention /
// intermediate / output shares inside a transformer layer.
#include <fmt/format.h>

#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>

#include "command.hpp"
#include "jouleprof/sources.hpp"
#include "jouleprof/torch_profile.hpp"
#include "torch_commands.hpp"
#include "torch_options.hpp"

namespace jouleprof::cli {
namespace {

namespace jt = torch_adapter;

struct SweepCommand {
  TorchCommandOptions run;
  std::string model = "bert";
  std::vector<int> layers;
  std::vector<int> hidden;
  std::string compare;
  std::string output = "jouleprof-sweep";
  ProgressFlags progress;
};

std::vector<jt::WorkloadOptions> variants(const SweepCommand& c) {
  std::vector<jt::WorkloadOptions> out;
  if (!c.compare.empty()) {
    for (const std::string& name : split_source_list(c.compare)) {
      jt::WorkloadOptions w = c.run.workload;
      w.model = name;
      out.push_back(w);
    }
    return out;
  }
  const std::vector<int> layer_values = c.layers.empty() ? std::vector<int>{0} : c.layers;
  const std::vector<int> hidden_values = c.hidden.empty() ? std::vector<int>{0} : c.hidden;
  for (int l : layer_values) {
    for (int h : hidden_values) {
      jt::WorkloadOptions w = c.run.workload;
      w.model = c.model;
      w.layers = l;
      w.hidden = h;
      out.push_back(w);
    }
  }
  return out;
}

int run_sweep(SweepCommand& c) {
  if (Status s = resolve_mode(c.run); !s.ok()) return report_error(s.error());
  std::error_code ec;
  std::filesystem::create_directories(c.output, ec);
  if (ec) return report_error(Error(ErrorCode::kIo, c.output + ": cannot create: " + ec.message()));

  jt::TorchProfileOptions options;
  options.steps = c.run.steps;
  options.warmup = c.run.warmup;
  options.idle_ns = s_to_ns(c.run.idle_s);
  auto sources = c.run.source_flags.to_options();
  if (!sources.ok()) return report_error(sources.error());
  options.monitor.sources = *sources;

  nlohmann::json rows = nlohmann::json::array();
  bool header_printed = false;
  int index = 0;
  const std::vector<jt::WorkloadOptions> all = variants(c);
  CommandProgress progress(c.progress);
  // No duration up front: a variant's step time is what the sweep measures. The ETA follows from
  // the variants done.
  progress.print(
      fmt::format("sweep: {} variants × ({} warm-up + {} recorded steps{}); Ctrl-C "
                  "stops after the variant under way, keeping those done",
                  all.size(), c.run.warmup, c.run.steps,
                  c.run.idle_s > 0 ? fmt::format(", {} s idle", c.run.idle_s) : ""));
  progress->begin("sweep", all.size(), 0);
  std::vector<std::string> missing;
  for (const jt::WorkloadOptions& w : all) {
    if (progress.interrupted()) {
      missing.push_back(fmt::format("{} layers={} hidden={}", w.model, w.layers, w.hidden));
      continue;
    }
    progress->item(static_cast<std::size_t>(index) + 1, w.model);
    auto workload = jt::make_workload(w);
    if (!workload.ok()) return report_error(workload.error());
    auto profiled = jt::profile_workload(**workload, options);
    if (!profiled.ok()) return report_error(profiled.error());
    const Profile& profile = profiled->profile;
    if (!header_printed) {
      if (profiled->estimated) {
        std::cout
            << "CPU ESTIMATE: no readable energy counter here; energies are estimated from CPU "
               "utilisation, not measured.\n";
      }
      std::cout << fmt::format("{:<46} {:>11} {:>9} {:>10} {:>10} {:>7} {:>7} {:>7}\n", "variant",
                               "parameters", "ms/step", "energy J", "J/sample", "attn", "inter",
                               "output");
      header_printed = true;
    }
    const double energy_j = profile.total_energy_j();
    const double per_sample_j =
        energy_j / static_cast<double>(std::max<std::int64_t>(1, profiled->samples));
    const jt::LayerBlockShares shares =
        profile.tree ? jt::transformer_block_shares(*profile.tree) : jt::LayerBlockShares{};
    const std::string description = (*workload)->description();
    progress.clear();
    std::cout << fmt::format(
        "{:<46} {:>11} {:>9.1f} {:>10.3f} {:>10.4f} {:>6.1f}% {:>6.1f}% {:>6.1f}%\n",
        description.substr(0, description.find(" batch=")), (*workload)->parameter_count(),
        ns_to_s(profiled->step_time_ns) * 1e3, energy_j, per_sample_j, 100 * shares.attention,
        100 * shares.intermediate, 100 * shares.output);
    const std::string path =
        (std::filesystem::path(c.output) / fmt::format("variant-{}.json", index++)).string();
    if (Status s = write_profile_json(profile, path); !s.ok()) return report_error(s.error());
    rows.push_back({{"variant", description},
                    {"parameters", (*workload)->parameter_count()},
                    {"step_time_s", ns_to_s(profiled->step_time_ns)},
                    {"energy_j", energy_j},
                    {"energy_per_sample_j", per_sample_j},
                    {"estimated", profiled->estimated},
                    {"layer_shares",
                     {{"attention", shares.attention},
                      {"intermediate", shares.intermediate},
                      {"output", shares.output}}},
                    {"profile", path}});
  }
  progress->end();
  const std::string summary = (std::filesystem::path(c.output) / "sweep.json").string();
  std::ofstream out(summary);
  out << rows.dump(2) << '\n';
  if (!out) return report_error(Error(ErrorCode::kIo, summary + ": write failed"));
  std::cout << "shares are of the energy inside the encoder layers (forward and backward); sweep "
               "written to "
            << summary << '\n';
  if (!missing.empty()) {
    std::cout << fmt::format("stopped: {} variants not profiled: {}\n", missing.size(),
                             fmt::join(missing, "; "));
    return kExitInterrupted;
  }
  return kExitOk;
}

}  // namespace

CommandRunner add_sweep_command(CLI::App& parent) {
  auto c = std::make_shared<SweepCommand>();
  CLI::App* command = parent.add_subcommand(std::string(kSweepCommand.name),
                                            std::string(kSweepCommand.description));
  command->add_option("--model", c->model, "Base model of the grid")->capture_default_str();
  command->add_option("--layers", c->layers, "Layer counts, e.g. 6,8,10,12")->delimiter(',');
  command->add_option("--hidden", c->hidden, "Hidden sizes, e.g. 512,768 (heads = hidden / 64)")
      ->delimiter(',');
  command->add_option("--compare", c->compare,
                      "Models to compare instead of a grid, e.g. bert-base,albert-base");
  add_torch_run_options(*command, c->run);
  command->add_option("--output", c->output, "Directory for sweep.json and each variant's profile")
      ->capture_default_str();
  c->progress.add_to(*command);
  return [c] { return run_sweep(*c); };
}

}  // namespace jouleprof::cli
