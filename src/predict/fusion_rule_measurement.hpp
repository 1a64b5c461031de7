// Measuring fusion rules on this machine (`jouleprof detect-rules`): for a rule BF_<a>_<b>, op a
// alone, op b alone and the pair a→b compiled as one block are each measured with the gated
// protocol; the published criterion (nn-Meter, DeepEn2023; METHODS.md §4) says the device fuses
// the pair when what running them together saves is more than half the cheaper op:
//
//   T(a) + T(b) − T(a+b) > 0.5 · min(T(a), T(b))        (T: time per call)
//
// The result is a rules file in the format FusionRules reads, with the measured figures beside
// each rule.
#pragma once

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "predict/kernel_bench.hpp"

namespace jouleprof::predict {

// The published criterion's threshold: the saving must exceed this share of min(T(a), T(b)).
inline constexpr double kFusionSavingShare = 0.5;

// What the criterion is applied to: time per call (the published rule), or energy per call.
enum class FusionCriterion { kLatency, kEnergy };
std::string_view to_string(FusionCriterion c);
std::optional<FusionCriterion> fusion_criterion_from_string(std::string_view s);

// a + b − fused > share · min(a, b).
bool fusion_saves(double a, double b, double fused, double share = kFusionSavingShare);

// "BF_conv_bn" → {"conv", "bn"}; an error names the rule when it has not that form.
Result<std::pair<std::string, std::string>> rule_ops(const std::string& rule_name);

struct MeasuredRule {
  std::string name;   // BF_<a>_<b>
  std::string block;  // what was run, e.g. "conv 3×3 64→64 on 1×64×28×28"
  KernelEnergy producer;
  KernelEnergy consumer;
  KernelEnergy fused;
  bool obey_latency = false;
  bool obey_energy = false;
  bool obey = false;  // by the chosen criterion
  // A rule that could not be measured keeps the input file's decision, marked so.
  bool measured = true;
  std::string failure;
  std::string kept_from;
};

// A rule carried over unmeasured from `origin`.
MeasuredRule unmeasured_rule(std::string name, bool obey, std::string origin, std::string failure);

// Applies the criterion to the three measurements.
MeasuredRule judge_rule(std::string name, std::string block, KernelEnergy producer,
                        KernelEnergy consumer, KernelEnergy fused, FusionCriterion criterion);

// {"BF_a_b": {"obey": …, "criterion": "latency", "obey_by_latency": …, "obey_by_energy": …,
//   "latency_ms": {"producer", "consumer", "fused", "saving"}, "energy_mJ": {…},
//   "energy_figure": "total", "energy_provenance": "estimated:cpu-estimate", "block": "…",
//   "repetitions": n}, …}; an unmeasured rule: {"obey": <input's>, "measured": false,
//   "kept_from": "<input file>", "failure": "…"}.
Status write_measured_rules(const std::vector<MeasuredRule>& rules, FusionCriterion criterion,
                            KernelEnergyFigure figure, const std::filesystem::path& path);

}  // namespace jouleprof::predict
