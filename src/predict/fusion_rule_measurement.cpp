#include "predict/fusion_rule_measurement.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "core/text_file.hpp"

namespace jouleprof::predict {

std::string_view to_string(FusionCriterion c) {
  return c == FusionCriterion::kLatency ? "latency" : "energy";
}

std::optional<FusionCriterion> fusion_criterion_from_string(std::string_view s) {
  if (s == "latency") return FusionCriterion::kLatency;
  if (s == "energy") return FusionCriterion::kEnergy;
  return std::nullopt;
}

bool fusion_saves(double a, double b, double fused, double share) {
  return a + b - fused > share * std::min(a, b);
}

Result<std::pair<std::string, std::string>> rule_ops(const std::string& rule_name) {
  const std::string prefix = "BF_";
  const std::size_t split = rule_name.find('_', prefix.size());
  if (rule_name.rfind(prefix, 0) != 0 || split == std::string::npos || split == prefix.size() ||
      split + 1 >= rule_name.size() || rule_name.find('_', split + 1) != std::string::npos) {
    return invalid_input("fusion rules", "rule", rule_name, "expected BF_<producer>_<consumer>");
  }
  return std::pair{rule_name.substr(prefix.size(), split - prefix.size()),
                   rule_name.substr(split + 1)};
}

MeasuredRule judge_rule(std::string name, std::string block, KernelEnergy producer,
                        KernelEnergy consumer, KernelEnergy fused, FusionCriterion criterion) {
  MeasuredRule r;
  r.name = std::move(name);
  r.block = std::move(block);
  r.producer = std::move(producer);
  r.consumer = std::move(consumer);
  r.fused = std::move(fused);
  r.obey_latency = fusion_saves(r.producer.call_ms, r.consumer.call_ms, r.fused.call_ms);
  r.obey_energy = fusion_saves(r.producer.energy_mj, r.consumer.energy_mj, r.fused.energy_mj);
  r.obey = criterion == FusionCriterion::kLatency ? r.obey_latency : r.obey_energy;
  return r;
}

MeasuredRule unmeasured_rule(std::string name, bool obey, std::string origin, std::string failure) {
  MeasuredRule r;
  r.name = std::move(name);
  r.obey = obey;
  r.measured = false;
  r.kept_from = std::move(origin);
  r.failure = std::move(failure);
  return r;
}

Status write_measured_rules(const std::vector<MeasuredRule>& rules, FusionCriterion criterion,
                            KernelEnergyFigure figure, const std::filesystem::path& path) {
  nlohmann::ordered_json doc = nlohmann::ordered_json::object();
  for (const MeasuredRule& r : rules) {
    if (!r.measured) {
      doc[r.name] = {{"obey", r.obey},
                     {"measured", false},
                     {"kept_from", r.kept_from},
                     {"failure", r.failure}};
      continue;
    }
    auto three = [](double a, double b, double fused) {
      return nlohmann::ordered_json{
          {"producer", a}, {"consumer", b}, {"fused", fused}, {"saving", a + b - fused}};
    };
    doc[r.name] = {
        {"obey", r.obey},
        {"criterion", to_string(criterion)},
        {"obey_by_latency", r.obey_latency},
        {"obey_by_energy", r.obey_energy},
        {"latency_ms", three(r.producer.call_ms, r.consumer.call_ms, r.fused.call_ms)},
        {"energy_mJ", three(r.producer.energy_mj, r.consumer.energy_mj, r.fused.energy_mj)},
        {"energy_figure", to_string(figure)},
        {"energy_provenance", r.fused.provenance},
        {"block", r.block},
        {"repetitions",
         std::min({r.producer.repetitions, r.consumer.repetitions, r.fused.repetitions})}};
  }
  return write_text_file(path.string(), doc.dump(2) + '\n');
}

}  // namespace jouleprof::predict
