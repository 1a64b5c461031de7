#include <fmt/format.h>

#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "command.hpp"
#include "output_format.hpp"
#include "predict/model_prediction.hpp"

namespace jouleprof::cli {
namespace {

using namespace jouleprof::predict;

struct PredictArgs {
  std::string model;
  std::string predictor;
  OutputFormat format = OutputFormat::kTable;
  std::string rules;
  std::string layout;
};

std::string feature_text(const KernelPrediction& k) {
  if (k.features.empty()) return "-";
  const auto names = feature_names(feature_set_of(k.type));
  std::vector<std::string> parts;
  for (std::size_t i = 0; i < k.features.size() && i < names.size(); ++i) {
    parts.push_back(fmt::format("{}={:.4g}", names[i], k.features[i]));
  }
  return fmt::format("{}", fmt::join(parts, " "));
}

double share_pct(const KernelPrediction& k, const ModelPrediction& m) {
  return m.predicted_total_mj > 0 && k.energy_mj ? 100.0 * *k.energy_mj / m.predicted_total_mj
                                                 : 0.0;
}

void print_table(const ModelPrediction& m) {
  fmt::print("model {}: {} kernels, {} predicted\n", m.model, m.kernels.size(),
             m.predicted_count());
  fmt::print("{:<24} {:<16} {:>12} {:>7}  {}\n", "kernel", "type", "energy mJ", "share",
             "features");
  for (const KernelPrediction& k : m.kernels) {
    const std::string energy = k.energy_mj ? fmt::format("{:.4g}", *k.energy_mj) : "-";
    const std::string share = k.energy_mj ? fmt::format("{:.1f} %", share_pct(k, m)) : "-";
    fmt::print("{:<24} {:<16} {:>12} {:>7}  {}\n", k.kernel.config.name, k.type, energy, share,
               feature_text(k));
    if (!k.energy_mj) fmt::print("{:<24}   not predicted: {}\n", "", k.unpredicted_reason);
  }
  if (m.complete) {
    fmt::print("total: {:.4g} mJ (predicted)\n", m.predicted_total_mj);
  } else {
    fmt::print(
        "total: {:.4g} mJ over the predicted kernels only — INCOMPLETE: {} of {} kernels not "
        "predicted{}\n",
        m.predicted_total_mj, m.kernels.size() - m.predicted_count(), m.kernels.size(),
        m.missing_types.empty()
            ? std::string()
            : fmt::format(" (no predictor for {})", fmt::join(m.missing_types, ", ")));
  }
  if (m.predicted_low_mj && m.predicted_high_mj) {
    fmt::print("90 % interval: {:.4g} – {:.4g} mJ (the kernels' intervals summed{})\n",
               *m.predicted_low_mj, *m.predicted_high_mj,
               m.complete ? "" : ", predicted kernels only");
  }
  fmt::print("provenance: {} — {}\n\n", to_string(m.provenance), m.provenance_detail);
}

nlohmann::json to_json(const ModelPrediction& m) {
  nlohmann::json kernels = nlohmann::json::array();
  for (const KernelPrediction& k : m.kernels) {
    nlohmann::json j = {{"name", k.kernel.config.name},
                        {"op", k.kernel.config.op},
                        {"type", k.type},
                        {"members", k.kernel.members},
                        {"features", k.features},
                        {"feature_names", feature_names(feature_set_of(k.type))}};
    if (k.energy_mj) {
      j["energy_mj"] = *k.energy_mj;
      j["share_pct"] = share_pct(k, m);
      if (k.low_mj && k.high_mj) j["interval_90_mj"] = {*k.low_mj, *k.high_mj};
    } else {
      j["energy_mj"] = nullptr;
      j["not_predicted"] = k.unpredicted_reason;
    }
    kernels.push_back(std::move(j));
  }
  nlohmann::json interval = nullptr;
  if (m.predicted_low_mj && m.predicted_high_mj) {
    interval = {*m.predicted_low_mj, *m.predicted_high_mj};
  }
  return {{"model", m.model},
          {"kernels", kernels},
          {"predicted_total_mj", m.predicted_total_mj},
          {"predicted_interval_90_mj", interval},
          {"complete", m.complete},
          {"missing_types", m.missing_types},
          {"provenance", {{"kind", to_string(m.provenance)}, {"detail", m.provenance_detail}}}};
}

}  // namespace

CommandRunner add_predict_command(CLI::App& parent) {
  auto args = std::make_shared<PredictArgs>();
  CLI::App* cmd = parent.add_subcommand(
      "predict",
      "Predict a model's inference energy from its kernels with a predictor bundle (DeepEn2023): "
      "per kernel the type, features, predicted mJ and share, then the total");
  cmd->add_option("--model", args->model,
                  "Model: .onnx, an nn-Meter JSON graph, or a JSON kernel list such as "
                  "mobilenetv1-variants.json (every model in it is predicted)")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("--predictor", args->predictor,
                  "Predictor bundle directory (from train-predictor --output)")
      ->required()
      ->check(CLI::ExistingDirectory);
  add_format_option(*cmd, args->format,
                    {OutputFormat::kTable, OutputFormat::kJson, OutputFormat::kCsv},
                    "table, json, or csv (one row per model)");
  cmd->add_option(
         "--rules", args->rules,
         "Fusion rules file of the target device (default: the shipped fusion-rules/default.json)")
      ->check(CLI::ExistingFile);
  cmd->add_option("--layout", args->layout,
                  "Tensor layout of graph shapes: nchw or nhwc (default: nchw for ONNX, the node's "
                  "data_format or nhwc for nn-Meter graphs)")
      ->check(CLI::IsMember({"nchw", "nhwc"}));
  return [args] {
    const auto predictions =
        predict_models(args->model, args->predictor, PredictionOptions{args->rules, args->layout});
    if (!predictions) return report_error(predictions.error());
    nlohmann::json all = nlohmann::json::array();
    if (args->format == OutputFormat::kCsv) {
      fmt::print(
          "model,kernels,predicted_kernels,predicted_total_mJ,complete,missing_types,provenance\n");
    }
    for (const ModelPrediction& m : *predictions) {
      if (args->format == OutputFormat::kTable) {
        print_table(m);
      } else if (args->format == OutputFormat::kJson) {
        all.push_back(to_json(m));
      } else {
        fmt::print("{},{},{},{:.6g},{},{},{}\n", m.model, m.kernels.size(), m.predicted_count(),
                   m.predicted_total_mj, m.complete, fmt::join(m.missing_types, ";"),
                   to_string(m.provenance));
      }
    }
    if (args->format == OutputFormat::kJson)
      std::cout << nlohmann::json{{"models", all}}.dump(2) << '\n';
    return kExitOk;
  };
}

}  // namespace jouleprof::cli
