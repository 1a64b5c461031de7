// jouleprof detect-rules: measures, on this machine, each producer→consumer fusion rule of a rules
// file (the shipped default unless --rules) with libtorch and the gated protocol, applies the
// published criterion and writes a rules file that predict --rules reads. The criterion and the
// file format live in src/predict/fusion_rule_measurement.cpp, the blocks in
// src/torch/kernel_calls.cpp; this file is the command line.
#include <fmt/format.h>

#include <algorithm>
#include <iostream>

#include "command.hpp"
#include "command_progress.hpp"
#include "device_option.hpp"
#include "gated_flags.hpp"
#include "number_checks.hpp"
#include "predict/fusion_rule_measurement.hpp"
#include "predict/fusion_rules.hpp"
#include "source_flags.hpp"
#include "torch/kernel_calls.hpp"
#include "torch_commands.hpp"

namespace jouleprof::cli {
namespace {

using namespace jouleprof::predict;

struct DetectRulesArgs {
  std::string rules_in;
  std::string rules_out = "fusion-rules.json";
  std::vector<std::string> only;
  std::string criterion = "latency";
  std::string energy = "total";
  torch_adapter::RuleBlockShape shape;
  torch_adapter::KernelCallOptions call;
  SourceFlags sources;
  std::unique_ptr<GatedFlags> gated;
  ProgressFlags progress;
};

// Three measurements per rule, each an item of the progress: rule k's are items 3k+1 … 3k+3.
constexpr std::size_t kCallsPerRule = 3;

Result<MeasuredRule> measure_rule(const std::string& name, std::size_t k,
                                  const DetectRulesArgs& args, const KernelBenchOptions& options,
                                  FusionCriterion criterion, ProgressReporter& progress) {
  JP_TRY(auto ops, rule_ops(name));
  JP_TRY(torch_adapter::RuleCalls calls,
         torch_adapter::make_rule_calls(ops.first, ops.second, args.shape, args.call));
  const auto measure = [&](const MeasuredCall& call, std::size_t j, const std::string& which) {
    progress.item(kCallsPerRule * k + j, name + " " + which);
    return measure_kernel_call(call, options, &progress);
  };
  JP_TRY(KernelEnergy producer, measure(calls.producer.run, 1, "producer"));
  JP_TRY(KernelEnergy consumer, measure(calls.consumer.run, 2, "consumer"));
  JP_TRY(KernelEnergy fused, measure(calls.fused.run, 3, "fused"));
  return judge_rule(name, calls.fused.description, std::move(producer), std::move(consumer),
                    std::move(fused), criterion);
}

int run_detect_rules(DetectRulesArgs& args) {
  const std::string rules_path =
      args.rules_in.empty() ? default_fusion_rules_path().string() : args.rules_in;
  const Result<FusionRules> input = FusionRules::from_file(rules_path);
  if (!input) return report_error(input.error());
  for (const std::string& name : args.only) {
    if (!input->rules().contains(name)) {
      return report_error(
          invalid_input(rules_path, "--only", name, "no such rule in the rules file"));
    }
  }
  const Result<SourceOptions> sources = args.sources.to_options();
  if (!sources) return report_error(sources.error());
  KernelBenchOptions options;
  options.monitor.sources = *sources;
  options.gated = args.gated->options();
  options.figure = *kernel_energy_figure_from_string(args.energy);
  const FusionCriterion criterion = *fusion_criterion_from_string(args.criterion);
  const std::size_t rule_count = args.only.empty() ? input->rules().size() : args.only.size();

  std::cout << fmt::format(
      "detect-rules: {} rules from {}, blocks 1×{}×{}×{} (KS {}), device {}; fused when "
      "{}(a) + {}(b) − {}(a+b) > {} · min({}(a), {}(b)), {} = {} per call\n",
      rule_count, rules_path, args.shape.channels, args.shape.hw, args.shape.hw,
      args.shape.kernel_size, to_string(args.call.device), "T", "T", "T", kFusionSavingShare, "T",
      "T", "T", criterion == FusionCriterion::kLatency ? "time" : "energy");
  std::cout << fmt::format(
      "{:<18} {:>9} {:>9} {:>9} {:>9}   {:>9} {:>9} {:>9}   {:<5} {:<5} {:<6}\n", "rule", "T(a) ms",
      "T(b) ms", "T(a+b)", "saving", "E(a) mJ", "E(b) mJ", "E(a+b)", "time", "energy", "before");
  std::cout << std::flush;
  CommandProgress progress(args.progress);
  const GatedOptions& g = options.gated;
  const TimeNs period = expected_update_period_ns(options.monitor, g.interval_ns);
  const GatedEstimate estimate = estimate_gated(g, period);
  const TimeNs estimate_ns = static_cast<TimeNs>(kCallsPerRule * rule_count) * estimate.total_ns;
  progress.print(
      estimate_text("detect-rules", kCallsPerRule * rule_count, "blocks", estimate, g, period));
  progress->begin("detect-rules", kCallsPerRule * rule_count, estimate_ns);
  std::vector<MeasuredRule> rules;
  std::vector<std::string> failed;
  std::string provenance;
  std::size_t k = 0;
  for (const auto& [name, obey_before] : input->rules()) {
    if (!args.only.empty() &&
        std::find(args.only.begin(), args.only.end(), name) == args.only.end())
      continue;
    Result<MeasuredRule> r =
        progress.interrupted()
            ? Result<MeasuredRule>(Error(ErrorCode::kInterrupted, "stopped before it was measured"))
            : measure_rule(name, k, args, options, criterion, *progress.reporter());
    ++k;
    progress.clear();
    if (!r) {
      failed.push_back(fmt::format("{}: {}", name, r.error().message()));
      std::cout << fmt::format("{:<18} NOT MEASURED, kept {} from the input: {}\n", name,
                               obey_before, r.error().message())
                << std::flush;
      rules.push_back(unmeasured_rule(name, obey_before, rules_path, r.error().message()));
      continue;
    }
    if (provenance.empty()) provenance = r->fused.provenance;
    std::cout << fmt::format(
                     "{:<18} {:>9.4g} {:>9.4g} {:>9.4g} {:>9.4g}   {:>9.4g} {:>9.4g} {:>9.4g}   "
                     "{:<5} {:<6} {:<6}\n",
                     name, r->producer.call_ms, r->consumer.call_ms, r->fused.call_ms,
                     r->producer.call_ms + r->consumer.call_ms - r->fused.call_ms,
                     r->producer.energy_mj, r->consumer.energy_mj, r->fused.energy_mj,
                     r->obey_latency ? "fuse" : "-", r->obey_energy ? "fuse" : "-",
                     obey_before ? "fuse" : "-")
              << std::flush;
    rules.push_back(std::move(r).value());
  }
  progress->end();
  progress.print(took_text("detect-rules", progress->elapsed_ns(), estimate_ns));
  if (Status s = write_measured_rules(rules, criterion, options.figure, args.rules_out); !s)
    return report_error(s.error());
  std::cout << fmt::format(
      "rules written to {} (decided by {}; energy {}{})\n", args.rules_out, args.criterion,
      provenance.empty() ? "not measured" : provenance,
      provenance.rfind("measured:", 0) == 0 || provenance.empty() ? "" : ", NOT a measurement");
  if (!failed.empty()) {
    std::cout << fmt::format(
        "{} rules not measured (kept from the input, marked \"measured\": false):\n",
        failed.size());
    for (const std::string& f : failed) std::cout << "  " << f << '\n';
    return progress.interrupted() ? kExitInterrupted : kExitError;
  }
  return kExitOk;
}

}  // namespace

CommandRunner add_detect_rules_command(CLI::App& parent) {
  auto args = std::make_shared<DetectRulesArgs>();
  CLI::App* cmd = parent.add_subcommand(std::string(kDetectRulesCommand.name),
                                        std::string(kDetectRulesCommand.description));
  cmd->add_option("--rules", args->rules_in, "Rules to measure (default: the shipped default.json)")
      ->check(CLI::ExistingFile);
  cmd->add_option("--rules-out", args->rules_out, "Rules file to write")->capture_default_str();
  cmd->add_option("--only", args->only, "Measure only these rules, e.g. BF_conv_bn,BF_bn_relu")
      ->delimiter(',');
  cmd->add_option("--criterion", args->criterion,
                  "What the published criterion is applied to: latency (the paper's T) or energy")
      ->check(CLI::IsMember({"latency", "energy"}))
      ->capture_default_str();
  cmd->add_option("--energy", args->energy,
                  "Energy per call reported beside each rule: total or net")
      ->check(CLI::IsMember({"total", "net"}))
      ->capture_default_str();
  cmd->add_option("--hw", args->shape.hw, "Input height = width of the blocks")
      ->check(kPositiveNumber)
      ->capture_default_str();
  cmd->add_option("--channels", args->shape.channels, "Channels of the blocks")
      ->check(kPositiveNumber)
      ->capture_default_str();
  cmd->add_option("--kernel-size", args->shape.kernel_size, "Kernel size of convolutions and pools")
      ->check(kPositiveNumber)
      ->capture_default_str();
  add_device_option(*cmd, args->call.device, "Where the blocks run");
  cmd->add_option(
         "--threads", args->call.threads,
         fmt::format("libtorch intra-op threads (1: DeepEn2023's single-thread CPU setting and "
                     "steady figures on a shared machine; 0: libtorch's default; at most {})",
                     kMaxThreads))
      ->check(whole_number_in(0, kMaxThreads))
      ->capture_default_str();
  cmd->add_option("--seed", args->call.seed, "Seed of the weights and inputs")
      ->capture_default_str();
  args->gated = std::make_unique<GatedFlags>(*cmd, kernel_gated_defaults());
  args->progress.add_to(*cmd);
  args->sources.add_to(*cmd);
  return [args] { return run_detect_rules(*args); };
}

}  // namespace jouleprof::cli
